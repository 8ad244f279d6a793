"""The release's platforms, shared by its checks, and whether they check scripts/release's
build (conftest.py)."""

import os
import re

import pytest

# The folder scripts/release built the release in; unset in a plain test run.
RELEASE = os.environ.get("LLAMAWAD_RELEASE")
# llamawad.exe as scripts/test cross-builds it where the cross tools are installed (unset
# elsewhere): the Windows command-line checks run on it in a plain test run too.
WINDOWS_EXE = os.environ.get("LLAMAWAD_WINDOWS_EXE")

# The platforms of Blender's extension manifest the release has a wheel and a zip for, each with
# the wheel platform tag that names it.
PLATFORMS = {
    "windows-x64": "win_amd64",
    "linux-x64": "manylinux_2_28_x86_64",
    "macos-arm64": "macosx_11_0_arm64",
    "macos-x64": "macosx_10_12_x86_64",
}

# What every Windows system has; any other DLL would have to ship beside the binary.
WINDOWS_SYSTEM_DLLS = re.compile(
    r"(kernel32|kernelbase|ntdll|advapi32|bcrypt|bcryptprimitives|userenv|ws2_32|msvcrt|ucrtbase"
    r"|shell32|ole32|oleaut32|user32|secur32|synchronization|api-ms-win-[a-z0-9-]+)\.dll",
    re.IGNORECASE,
)

# How scripts/release makes each platform's wheel, for the reason a plain run skips its checks.
BUILT_BY_RELEASE = {
    "windows-x64": "cross-built by scripts/release, linked by MinGW-w64",
    "linux-x64": "built by scripts/release as manylinux_2_28, linked by zig against that glibc",
    "macos-arm64": "cross-built by scripts/release, linked by zig",
    "macos-x64": "cross-built by scripts/release, linked by zig",
}


def needs_release(what: str):
    """Skips (in a plain test run; a release check fails instead) a check of what only
    scripts/release builds."""
    pytest.skip(f"needs {what}")
