# sh tree.sh NAME [MACRO=VALUE ...] (from the repository root): ab-NAME/src, 64600bf's src/ with
# mask.patch (this folder's) applied and each #define MACRO in its kernels, or NAME = value in its
# plans.py, set to VALUE; `sh tree.sh old` gives 64600bf's src/ unchanged. Untracked; delete afterwards.
name=$1; shift
rm -rf ab-$name && mkdir ab-$name
git archive 64600bf src | tar -x -C ab-$name
[ $name = old ] && exit
patch -s -p1 -d ab-$name < benchmarks/h200/softmax/team-mask/mask.patch
for kv in "$@"; do
  sed -i "s/^#define ${kv%%=*} .*/#define ${kv%%=*} ${kv#*=}/" ab-$name/src/bwlab/workloads/softmax/kernels/*.cu*
  sed -i "s/^${kv%%=*} = [^ ]*/${kv%%=*} = ${kv#*=}/" ab-$name/src/bwlab/workloads/softmax/plans.py
done
