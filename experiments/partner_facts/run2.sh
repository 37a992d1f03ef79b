cd /work/main
SEED=${SEED:-10374}
for spec in "$@"; do
  tag=$(echo "$spec" | tr ':=,.' '____')_$SEED
  PYTHONPATH=experiments/partner_facts:/work/main .venv/bin/allfives eval --agents "$spec" ${OPP:-search:engine=compiled} --players 4 --games ${GAMES:-1000} --seed $SEED --workers 2 --no-progress --json experiments/partner_facts/$tag.json --records experiments/partner_facts/$tag.jsonl > experiments/partner_facts/$tag.txt 2>&1
  echo "$(date) $tag $(sed -n 4p experiments/partner_facts/$tag.txt)" >> experiments/partner_facts/results.log
done
