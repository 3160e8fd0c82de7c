#!/bin/sh
# Usage: prometheus_rules.sh RULES_DIR
# promtool check rules and promtool test rules on packaging/prometheus/, then
# fails unless every alert of the rules file has a case in the test file
# (exit 77, skipped, without promtool; tool_missing.sh's CI rule applies).
set -eu
dir=$1
if ! command -v promtool >/dev/null 2>&1; then
  exec "$(dirname "$0")/../tool_missing.sh" promtool prometheus "the Prometheus alert rules"
fi
cd "$dir"
promtool check rules rdmascope.rules.yml
promtool test rules rdmascope.rules.test.yml
python3 - <<'PY'
import yaml
rules = yaml.safe_load(open("rdmascope.rules.yml"))
tests = yaml.safe_load(open("rdmascope.rules.test.yml"))
alerts = [r["alert"] for g in rules["groups"] for r in g["rules"] if "alert" in r]
fires, silent = {}, {}
for t in tests["tests"]:
    for c in t.get("alert_rule_test", []):
        (fires if c.get("exp_alerts") else silent).setdefault(c["alertname"], 0)
        (fires if c.get("exp_alerts") else silent)[c["alertname"]] += 1
missing = [a for a in alerts if a not in fires]
for a in alerts:
    print(f"{a}: {fires.get(a, 0)} firing case(s), {silent.get(a, 0)} silent case(s)")
if missing:
    raise SystemExit("alerts without a firing test case: " + ", ".join(missing))
print(f"{len(alerts)} alerts, every one with a firing test case")
PY
