# sh benchmarks/h200/softmax/team-pipe/run.sh (from the repository root on the device): the kernels
# built first, then colsTeam's forced GPU tests (colsTeam and colsTeamPipe), then pipe.py.
export BWLAB_CACHE=${BWLAB_CACHE:-/tmp/bwc} PYTHONPATH=src
python3 -c "
from bwlab.core import build
from bwlab.workloads.softmax import plans
s = plans.SRC['colscluster']
build.compile_each(s, [e for e in plans.expressions()[s] if e.startswith('colsTeam')], 'sm_90', jobs=16)" &
python3 benchmarks/h200/softmax/team-pipe/cases.py 16 > $OUT/regs.txt 2>&1
wait
timeout 240 python3 -m pytest -q -p no:cacheprovider -n 12 -W ignore -m gpu tests/softmax/test_gpu_kernels.py \
  -k cols_team_forced > $OUT/tests.txt 2>&1; tail -2 $OUT/tests.txt
cd benchmarks/h200/softmax/team-pipe && PYTHONPATH=../../../../src timeout 300 python3 pipe.py "$@" > $OUT/pipe.txt 2>&1; tail -3 $OUT/pipe.txt
