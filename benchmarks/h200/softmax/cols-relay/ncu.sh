# Nsight Compute on colsRelay and colsChunks at [4, 32768, 1024] (the last of three calls each)
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,launch__registers_per_thread,launch__occupancy_limit_registers
run() { ncu --metrics $M --launch-skip $1 --launch-count $2 -k "regex:cols" python3 one.py "${@:3}" 2>&1 | grep -E "cols|gpu__|dram__|lts__|sm__|smsp__|launch__" ; }
run 2 1 4x32768x1024 1 float32 fwd 256 32 8
run 2 1 4x32768x1024 1 float32 fwd 64 32 8
run 6 3 4x32768x1024 1 float32 fwd
run 2 1 4x32768x1024 1 bfloat16 fwd 512 32 8
