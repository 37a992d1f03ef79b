# run.sh SEED GAMES TAG SPEC ...
S=$1; G=$2; shift 2
while [ $# -gt 1 ]; do
  bash /work/scratch/ev.sh "$1" $S $G "$2"
  echo "$(date +%T) $1 $S $(sed -n 4p /work/scratch/res/$1_$S.txt) $(sed -n 5p /work/scratch/res/$1_$S.txt | cut -c1-60)" >> /work/scratch/conv3/results.log
  shift 2
done
