"""Older releases of packages the virtualenv holds at a newer one, for the tests that prove the
gateway serves clients of both lines (an a2a-sdk 0.3 client; UCP answers read by ucp-sdk 0.4).

One virtualenv holds one release of a package, so each older line is installed apart, with its
own dependencies, under `.venv/sidecars/<name>` (`pip install --target`), and a test runs a
script against it in a fresh interpreter whose path puts that directory first. `make test`
installs them (`python tests/support/sidecars.py`, run by the Makefile before pytest); a
missing one fails the test that needs it with the command that installs it.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOME = ROOT / ".venv" / "sidecars"
# name: what is installed under HOME / name, the package and every package it needs, each
# pinned (installed without resolving: a later release of a dependency changes nothing here).
SIDECARS = {
    "a2a-sdk-0.3": (
        "a2a-sdk[http-server]==0.3.26 annotated-doc==0.0.7 annotated-types==0.8.0 anyio==4.16.0 "
        "certifi==2026.10.19.post1 cffi==2.1.1 charset-normalizer==3.5.3 cryptography==50.0.2 "
        "fastapi==0.165.0 google-api-core==2.44.0 google-auth==2.63.0 "
        "googleapis-common-protos==1.76.0 h11==0.16.0 httpcore==1.0.9 httpx-sse==0.4.3 "
        "httpx==0.28.1 idna==3.20 opentelemetry-api==1.45.2 proto-plus==1.29.0 protobuf==7.36.2 "
        "pyasn1==0.6.5 pyasn1_modules==0.4.2 pycparser==3.12 pydantic==2.14.4 "
        "pydantic_core==2.50.5 requests==2.34.2 sse-starlette==3.7.0 starlette==1.10.0 "
        "typing-inspection==0.4.5 typing_extensions==4.16.0 urllib3==2.8.0"
    ),
    "ucp-sdk-0.4": (
        "ucp-sdk==0.4.6 annotated-types==0.8.0 dnspython==2.9.2 email-validator==2.4.0 "
        "idna==3.20 pydantic==2.14.4 pydantic_core==2.50.5 typing-inspection==0.4.5 "
        "typing_extensions==4.16.0"
    ),
}
STAMP = ".requirement"  # what a sidecar's directory was installed from


def installed(name: str) -> bool:
    stamp = HOME / name / STAMP
    return stamp.is_file() and stamp.read_text() == SIDECARS[name]


def install(name: str) -> None:
    """Install the sidecar `name` afresh (a directory of an earlier requirement is replaced)."""
    target = HOME / name
    shutil.rmtree(target, ignore_errors=True)
    pip = [sys.executable, "-m", "pip", "install", "-qq", "--disable-pip-version-check"]
    # The venv's own newer release conflicts with the sidecar's by design: no warning of it.
    pip += ["--no-warn-conflicts", "--no-deps", "--target", str(target), *SIDECARS[name].split()]
    subprocess.run(pip, check=True)  # noqa: S603 - a fixed requirement of this module
    (target / STAMP).write_text(SIDECARS[name])


def run_in_sidecar(
    name: str, script: str, *args: str, stdin: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run the Python `script` (its text) with `args` where `import` finds the sidecar `name` and
    the standard library only: no site-packages (`-S`), so nothing of the venv's newer release,
    a namespace package's other half included, is found. The script's output is returned; a
    script that fails fails the test, showing it."""
    if not installed(name):
        pytest.fail(
            f"The sidecar {name} ({SIDECARS[name].split()[0]}, ...) is not installed: "
            f"run `{sys.executable} tests/support/sidecars.py` (make test does)."
        )
    env = {**os.environ, "PYTHONPATH": str(HOME / name), "PYTHONNOUSERSITE": "1"}
    done = subprocess.run(  # noqa: S603 - the test's own script, in this interpreter
        [sys.executable, "-S", "-c", script, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=ROOT,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"The script in sidecar {name} failed ({done.returncode}):\n{done.stderr}")
    return done


def run_json(name: str, script: str, *args: str, stdin: object = None) -> object:
    """run_in_sidecar with JSON in (stdin) and out (the script's last line of output)."""
    text = None if stdin is None else json.dumps(stdin)
    done = run_in_sidecar(name, script, *args, stdin=text)
    return json.loads(done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    for sidecar in SIDECARS:
        if not installed(sidecar):
            print(f"installing the sidecar {sidecar} ({SIDECARS[sidecar].split()[0]}, ...)")
            install(sidecar)
