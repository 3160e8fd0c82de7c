#!/usr/bin/env python3
"""Checks that schemas/report.schema.json and the collector's C++ validator
agree on every document of a JSON-lines file: {"doc": ..., "cpp_ok": bool}.
Exit 0 all agree, 1 a disagreement (each printed), 77 jsonschema not installed."""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("python3 jsonschema not installed (Debian package python3-jsonschema)")
    sys.exit(77)


def main():
    schema_path, cases_path = sys.argv[1], sys.argv[2]
    with open(schema_path) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    bad = 0
    n = 0
    with open(cases_path) as f:
        for line in f:
            case = json.loads(line)
            n += 1
            errors = list(validator.iter_errors(case["doc"]))
            schema_ok = not errors
            if schema_ok != case["cpp_ok"]:
                bad += 1
                where = "/" + "/".join(map(str, errors[0].absolute_path)) if errors else ""
                print(f"disagree on {case['what']}: schema {'accepts' if schema_ok else 'rejects ' + where}, "
                      f"C++ {'accepts' if case['cpp_ok'] else 'rejects ' + case.get('cpp_field', '')}")
    print(f"{n} documents, {bad} disagreements")
    return 1 if bad else 0


sys.exit(main())
