"""Runs the steps of a composite GitHub Action as a runner does, on this machine.

    run_action.py ACTION_DIR --workspace DIR --runner-temp DIR [--input NAME=VALUE]...

Reads ACTION_DIR/action.yml, takes each input's default unless --input gives it, and runs each step's
`run` script with `bash --noprofile --norc -eo pipefail FILE` (what `shell: bash` means on a runner)
in the workspace, with the step's `env` evaluated and the variables a runner sets: GITHUB_ACTION_PATH,
GITHUB_WORKSPACE, RUNNER_TEMP, GITHUB_OUTPUT (a file per step, read back into `steps.ID.outputs`) and
GITHUB_PATH (whose lines are put before PATH for the steps after). The first failing step ends the
run, as it does on a runner when no step has an `if:`. Prints the action's outputs as `output NAME=VALUE`
lines and exits with the failing step's exit code, else 0; its own errors (a bad action.yml, an
expression it does not evaluate) exit 100, which no step's code can be mistaken for.

Only the expressions this action uses are evaluated: `${{ a.b.c }}` property paths into `inputs`,
`github.action_path`, `github.workspace` and `steps.ID.outputs`; anything else is an error, so the
emulation cannot quietly differ from a runner.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

import yaml

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
PROPERTY_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$")


def evaluate(text, context, missing_is_empty=False):
    """Replaces each `${{ path }}` in text with the value at path in context. A path that names nothing
    is an error, or the empty string (what a runner gives) when missing_is_empty."""

    def value(match):
        path = match.group(1)
        if not PROPERTY_PATH.match(path):
            sys.exit(f"run_action: unsupported expression ${{{{ {path} }}}}")
        node = context
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node:
                if missing_is_empty:
                    return ""
                sys.exit(f"run_action: ${{{{ {path} }}}} names nothing")
            node = node[part]
        return str(node)

    return EXPRESSION.sub(value, str(text))


def read_outputs(path):
    """The NAME=VALUE lines (and NAME<<DELIMITER blocks) a step wrote to GITHUB_OUTPUT."""
    outputs = {}
    with open(path, encoding="utf-8") as file:
        lines = iter(file.read().splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body = []
            for body_line in lines:
                if body_line == delimiter:
                    break
                body.append(body_line)
            outputs[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("action_dir")
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--runner-temp", required=True)
    parser.add_argument("--input", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    action_dir = os.path.abspath(args.action_dir)
    workspace = os.path.abspath(args.workspace)
    runner_temp = os.path.abspath(args.runner_temp)
    os.makedirs(runner_temp, exist_ok=True)
    with open(os.path.join(action_dir, "action.yml"), encoding="utf-8") as file:
        action = yaml.safe_load(file)
    if action["runs"]["using"] != "composite":
        sys.exit("run_action: only composite actions")

    inputs = {name: str(spec.get("default", "")) for name, spec in action.get("inputs", {}).items()}
    for given in args.input:
        name, _, value = given.partition("=")
        if name not in inputs:
            sys.exit(f"run_action: action.yml has no input {name!r}")
        inputs[name] = value
    context = {"inputs": inputs, "github": {"action_path": action_dir, "workspace": workspace}, "steps": {}}

    github_path = os.path.join(runner_temp, "github_path")
    open(github_path, "w", encoding="utf-8").close()
    base_env = dict(os.environ)
    base_env.update(
        {
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_ACTION_PATH": action_dir,
            "GITHUB_WORKSPACE": workspace,
            "RUNNER_TEMP": runner_temp,
            "GITHUB_PATH": github_path,
        }
    )
    code = 0
    for number, step in enumerate(action["runs"]["steps"]):
        name = step.get("name", f"step {number}")
        if step.get("shell") != "bash" or "run" not in step or "if" in step:
            sys.exit(f"run_action: {name}: only `run` steps with `shell: bash` and no `if:`")
        env = dict(base_env)
        with open(github_path, encoding="utf-8") as file:
            added = [line for line in file.read().splitlines() if line]
        env["PATH"] = os.pathsep.join(list(reversed(added)) + [base_env["PATH"]])
        for key, value in (step.get("env") or {}).items():
            env[key] = evaluate(value, context)
        output_file = os.path.join(runner_temp, f"github_output_{number}")
        open(output_file, "w", encoding="utf-8").close()
        env["GITHUB_OUTPUT"] = output_file
        with tempfile.NamedTemporaryFile("w", suffix=".sh", dir=runner_temp, delete=False) as script:
            script.write(evaluate(step["run"], context))
        print(f"== {name}", flush=True)
        code = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script.name], cwd=workspace, env=env).returncode
        if "id" in step:
            context["steps"][step["id"]] = {"outputs": read_outputs(output_file), "outcome": "success" if code == 0 else "failure"}
        if code != 0:
            print(f"== {name} failed with exit code {code}", flush=True)
            break
    for name, spec in (action.get("outputs") or {}).items():
        print(f"output {name}={evaluate(spec['value'], context, missing_is_empty=True)}")
    return code


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit as stop:
        if isinstance(stop.code, str):
            print(stop.code, file=sys.stderr)
            sys.exit(100)
        raise
    except Exception as error:  # A malformed action.yml, most likely: say so, distinctly.
        print(f"run_action: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(100)
