# Nsight Compute on tallPerm (one launch each, after a warm-up one): ncu-tall-*.txt
set -e
cd benchmarks/h200/transpose/perm-probe
export BWLAB_CACHE=/tmp/bwc PYTHONPATH=../../../../src
for c in "1 33 1 1" "1 16 1 1" "1 33 2 0"; do
  ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
   --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum \
   -k regex:Perm --launch-skip 1 --launch-count 1 python3 probe.py one $c > $OUT/ncu-$(echo $c | tr ' ' _).txt 2>&1 || true
done
for f in $OUT/ncu-*.txt; do echo "== $f"; grep -E "Duration|DRAM Throughput|dram__bytes|lts__t_sectors|lts__t_requests|inst_executed|bank_conflicts|Achieved Occupancy|Registers Per|Issued Warp|stalled|L2 Cache Throughput|L1/TEX Cache Throughput" $f | head -30; done
