# sh benchmarks/h200/softmax/row-fold-lag/tree.sh NAME [LAG] (from the repository root): ab-NAME/src, the
# working tree's src with ROW_FOLD_LAG set to LAG, or without LAG HEAD's src (git archive). Untracked;
# delete them afterwards.
rm -rf ab-$1 && mkdir ab-$1
if [ -z "$2" ]; then git archive HEAD src | tar -x -C ab-$1; exit; fi
cp -r src ab-$1/
sed -i "s/^#define ROW_FOLD_LAG .*/#define ROW_FOLD_LAG $2/" ab-$1/src/bwlab/workloads/softmax/kernels/rowstream.cu
