nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpu.txt
export BWLAB_CACHE=/tmp/bwc
cd benchmarks/h200/softmax/two-pass
for i in 1 2; do for t in old new; do if [ $t = old ]; then P=../../../../ab-old/src; else P=../../../../src; fi
  C=nocheck; [ $t$i = new1 ] && C=check
  PYTHONPATH=$P python3 probe.py $t strided $C 2>&1 | tail -8; done; done | tee $OUT/ab-strided.txt
cd ../../../..
export PYTHONPATH=src
python3 benchmarks/h200/softmax/sweeps/stages.py screen > $OUT/screen.txt 2>&1; tail -2 $OUT/screen.txt
python3 benchmarks/h200/softmax/sweeps/stages.py forward > $OUT/stages-forward.txt 2>&1; tail -12 $OUT/stages-forward.txt
ncu --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats -k regex:colsCluster -c 1 python3 benchmarks/h200/softmax/long-axis/one.py 16,8192,1024 bfloat16 forward fwd chosen > $OUT/ncu-bf16-twopass.txt 2>&1; grep -i "throughput\|issue\|warp cycles\|active warps\|stall" $OUT/ncu-bf16-twopass.txt | head -20
