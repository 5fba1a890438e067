# sh tree.sh NAME PATCH [MACRO=VALUE ...] (from the repository root): ab-NAME/src, d4b7a03's src/
# with PATCH (this folder's) applied and each #define MACRO in it set to VALUE; `sh tree.sh old` gives
# ab-old/src, `git archive` of eda85d1 (the tree before). Untracked; delete them afterwards.
name=$1
rm -rf ab-$name && mkdir ab-$name
if [ $name = old ]; then git archive eda85d1 src | tar -x -C ab-$name; exit; fi
patch=$2; shift 2
git archive d4b7a03 src | tar -x -C ab-$name
patch -s -p1 -d ab-$name < benchmarks/h200/softmax/team-l2/$patch
for kv in "$@"; do
  sed -i "s/^#define ${kv%%=*} .*/#define ${kv%%=*} ${kv#*=}/" ab-$name/src/bwlab/workloads/softmax/kernels/*.cu*
done
