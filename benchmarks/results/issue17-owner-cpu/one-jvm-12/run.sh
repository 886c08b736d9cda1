#!/bin/bash
# From the checkout, after mvn -DskipTests install; OUT (default /tmp/long) must exist.
cd "$(git rev-parse --show-toplevel)"
JAR=benchmarks/target/benchmarks.jar
java -Xmx1g -cp $JAR io.batchconsumer.benchmarks.kafka.BenchBroker > ${OUT:-/tmp/long}/broker.out 2>${OUT:-/tmp/long}/broker.log &
BROKER=$!
for i in $(seq 1 60); do grep -q '^bootstrap=' ${OUT:-/tmp/long}/broker.out && break; sleep 1; done
BOOT=$(grep '^bootstrap=' ${OUT:-/tmp/long}/broker.out | cut -d= -f2)
for n in 1 2 3; do for c in "plain KafkaConsumer" "batch-consumer key, transport defaults, each message"; do
  tag=$(echo $c | cut -c1-5)-$n
  java -Xmx1g -jar $JAR --broker=$BOOT "--contender=$c" --rounds=12 \
    --quick --scale=200 --scenarios=1 --warm-up=2s --max-run=60s --out=${OUT:-/tmp/long}/$tag > ${OUT:-/tmp/long}/$tag.log 2>&1
  echo "$tag $(grep -o '\(owner\|poll thread\) CPU [0-9.]*' ${OUT:-/tmp/long}/$tag/results.csv | awk '{print $NF}' | head -12 | tr '\n' ' ')"
done; done
kill $BROKER
