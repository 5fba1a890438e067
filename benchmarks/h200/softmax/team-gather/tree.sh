# sh tree.sh NAME [MACRO=VALUE ...] (from the repository root): ab-NAME/src, 894dffc's src/ with
# variants.patch (this folder's) applied and each #define MACRO in it set to VALUE; `sh tree.sh old`
# gives 894dffc's src/ unchanged. Untracked; delete them afterwards.
name=$1; shift
rm -rf ab-$name && mkdir ab-$name
git archive 894dffc src | tar -x -C ab-$name
[ $name = old ] && exit
patch -s -p1 -d ab-$name < benchmarks/h200/softmax/team-gather/variants.patch
for kv in "$@"; do
  sed -i "s/^#define ${kv%%=*} .*/#define ${kv%%=*} ${kv#*=}/" ab-$name/src/bwlab/workloads/softmax/kernels/*.cu*
done
