# From the repository root on the device: probe.py loads, then torch.compile's generated kernels.
cd benchmarks/h200/softmax/chunks-rows
BWLAB_CACHE=/tmp/bwc PYTHONPATH=../../../../src timeout 300 python3 probe.py loads > $OUT/loads.txt 2> $OUT/loads.err
tail -2 $OUT/loads.err
cat $OUT/loads.txt
TORCH_LOGS=output_code timeout 120 python3 inductor.py > $OUT/inductor.txt 2>&1
grep -n -E "def triton|tl.load|tl.store|XBLOCK|R0_BLOCK|RBLOCK|num_warps|grid|for r" $OUT/inductor.txt | head -80
