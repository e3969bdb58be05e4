"""Runs the README's curl walkthrough against a live server and checks every `# expect:`,
so the README cannot drift from the server."""

import os
import re
import subprocess

from tandem_server import REPO

BEGIN, END = "<!-- walkthrough:begin -->", "<!-- walkthrough:end -->"
EXPECT = re.compile(r"^\s*# expect: (.*)$")


def walkthrough_block() -> tuple[str, str]:
    """The ```sh block between the markers: README.md's, or the draft's until it is pasted."""
    for path in (REPO / "README.md", REPO / "docs" / "curl-walkthrough.md"):
        if path.is_file():
            text = path.read_text()
            if BEGIN in text and END in text:
                inner = text.split(BEGIN, 1)[1].split(END, 1)[0]
                m = re.search(r"```(?:sh|bash|shell)\n(.*?)```", inner, re.S)
                assert m, f"{path.name}: no ```sh block between the walkthrough markers"
                return str(path.relative_to(REPO)), m.group(1)
    raise AssertionError("neither README.md nor docs/curl-walkthrough.md has the walkthrough markers")


def steps(block: str) -> list[tuple[list[str], list[str]]]:
    """Splits the block into (commands, expectations) pairs: a step ends with its expect lines."""
    out, commands, expects = [], [], []
    for line in block.splitlines():
        m = EXPECT.match(line)
        if m:
            expects.append(m.group(1).strip())
            continue
        if expects:
            out.append((commands, expects))
            commands, expects = [], []
        commands.append(line)
    out.append((commands, expects))
    return out


def test_readme_walkthrough(servers):
    srv = servers(name="walkthrough")
    source, block = walkthrough_block()
    parts = steps(block)
    assert sum(len(e) for _, e in parts) >= 8, "the walkthrough checks too little"
    script = ["set -euo pipefail"]
    for i, (commands, _) in enumerate(parts):
        script.append(f"printf '\\n@@step-{i}@@\\n'")
        script += commands
    script.append("printf '\\n@@step-end@@\\n'")
    env = dict(os.environ, TANDEM=srv.base)
    run = subprocess.run(["bash", "-c", "\n".join(script)], capture_output=True, text=True,
                         env=env, timeout=60, cwd=str(REPO))
    assert run.returncode == 0, f"{source}: the walkthrough failed ({run.returncode})\n{run.stdout}\n{run.stderr}"
    out = run.stdout
    for i, (commands, expects) in enumerate(parts):
        section = out.split(f"@@step-{i}@@", 1)[1].split(f"@@step-{i + 1}@@" if i + 1 < len(parts) else "@@step-end@@", 1)[0]
        for want in expects:
            shown = "\n".join(c for c in commands if c.strip() and not c.lstrip().startswith("#"))
            assert want in section, f"{source}: expected {want!r} in the output of\n{shown}\n--- got ---\n{section}"
