#!/bin/bash
# Profiles one runner JVM against a broker of its own with async-profiler (measurement only, not a
# dependency of the project): fetch it once with
#   mvn -q dependency:get -Dartifact=tools.profiler:async-profiler:4.1 -Dtransitive=false
#   unzip -q ~/.m2/repository/tools/profiler/async-profiler/4.1/async-profiler-4.1.jar -d /tmp/ap
# usage: EVENT="event=wall,interval=500us" profile-run.sh <benchmarks.jar> '<contender>' <out.collapsed> [JVM flags]
# (EVENT defaults to CPU samples every 200 us); then: python3 profile-breakdown.py <out.collapsed> '<thread regex>' '<frame regex>'...
set -e
JAR=$1; NAME=$2; OUT=$3; shift 3
AP=${AP:-/tmp/ap/linux-x64/libasyncProfiler.so}
WORK=$(mktemp -d)
java -Xmx1g -cp "$JAR" io.batchconsumer.benchmarks.kafka.BenchBroker > "$WORK/broker.out" 2> "$WORK/broker.err" &
BROKER=$!
trap 'kill $BROKER 2>/dev/null' EXIT
for i in $(seq 1 120); do grep -q bootstrap= "$WORK/broker.out" && break; sleep 0.5; done
BOOTSTRAP=$(grep bootstrap= "$WORK/broker.out" | cut -d= -f2)
java -Xmx1g -Xms1g -XX:+AlwaysPreTouch -XX:+UseTransparentHugePages "$@" \
    "-agentpath:$AP=start,${EVENT:-event=cpu,interval=200us},threads,file=$OUT,collapsed" \
    -jar "$JAR" --broker="$BOOTSTRAP" "--contender=$NAME" --rounds=5 --quick --scale=200 --scenarios=1 \
    --warm-up=2s --max-run=60s --out="$WORK/out" > "$WORK/run.log" 2>&1
grep 'zero work' "$WORK/run.log" | tail -1
