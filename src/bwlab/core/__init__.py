"""The mechanics every workload shares: device facts and ceilings, compiling and launching
kernels, operands, timing, verification, results and files. No workload is named here."""
