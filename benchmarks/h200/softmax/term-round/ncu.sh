# sh benchmarks/h200/softmax/term-round/ncu.sh (from the repository root on the device, after run.sh):
# Nsight Compute on one call of each bfloat16 softmax case below, on both trees (../fold-cost/one.py).
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
for t in old new; do
  P=src; [ $t = old ] && P=ab-old/src
  for c in "16,8192,1024 1 bfloat16 fwd" "4,32768,1024 1 bfloat16 fwd" "1024,131072 -1 bfloat16 fwd"; do
    echo "=== $t $c"
    PYTHONPATH=$P ncu --kernel-name regex:"row|cols" --launch-skip 3 --launch-count 1 --metrics $M \
      python3 benchmarks/h200/softmax/fold-cost/one.py $c 2>&1 | grep -E "^  [a-z]|bad|Metric Value|void" | grep -v "^    ---"
  done
done
