# One device call (nvidia-h200), from the repository root; logs under $OUT. See COMMAND.
set -u
export PYTHONPATH=src
D=benchmarks/h200/transpose/words-wide
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || exit 3
timeout 150 python3 -m pytest -m gpu -q -p no:cacheprovider -n 4 -rf -W ignore tests/transpose/test_gpu_api.py \
  tests/transpose/test_gpu_layouts.py -k "every_tile_candidate or byte_kernels_on_views or odd_extents_over" \
  > $OUT/tests.txt 2>&1
tail -3 $OUT/tests.txt
timeout 150 python3 $D/probe1.py $D/ab-old 3 > $OUT/probe1.txt 2>&1
cat $OUT/probe1.txt
for k in old 256x124 256x248 128x248; do
  echo "== $k"
  timeout 40 ncu --section SpeedOfLight --section Occupancy \
    --metrics smsp__inst_executed.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_requests_srcunit_tex_op_read.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum \
    -k regex:tileWhole --launch-skip 1 --launch-count 1 python3 $D/one1.py $k $D/ab-old 2>&1 | grep -v "^==PROF=="
done > $OUT/ncu.txt 2>&1
grep -E "^== |Duration|L2 Cache Throughput|lts__t_sectors_op|lts__t_requests|inst_executed|bank_conflicts|Achieved Occ|Registers" $OUT/ncu.txt
echo "call: done"
