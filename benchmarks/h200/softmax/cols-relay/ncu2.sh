# Nsight Compute: colsRelay's L2 hits against the row stride and the lead (the last of three calls each)
M=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
run() { echo "== $*"; ncu --metrics $M --launch-skip 2 --launch-count 1 -k "regex:cols" python3 one.py "$@" 2>&1 | grep -E "gpu__|dram__|lts__" ; }
run 4x32768x1024 1 float32 fwd 256 32 8
run 4x32768x1056 1 float32 fwd 256 32 8
run 4x32768x1088 1 float32 fwd 256 32 8
run 4x32768x1024 1 float32 fwd 256 32 0
run 4x32768x1024 1 float32 fwd 256 8 1
run 4x32768x1024 1 float32 fwd 256 8 0
run 4x32768x1056 1 float32 fwd 256 8 1
run 64x2048x1024 1 float32 fwd 256 32 8
