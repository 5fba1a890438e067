# rowRelay with its counts on lines of their own (new) against the tree before (old: ab-old/, `git
# archive` of the commit before, beside src/), alternately, two rounds; then colsRelay's sweep.
for i in 1 2; do for t in old new; do
  if [ $t = old ]; then P=../../../../ab-old/src; else P=../../../../src; fi
  C=nocheck; [ $i = 1 ] && C=check
  PYTHONPATH=$P python3 rows-ab.py $t $C
done; done
PYTHONPATH=../../../../src python3 relay.py slack lines
