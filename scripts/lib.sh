# Shared by the scripts in this folder; sourced, not run. Sets ROOT to the repository root.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
# A venv keeps its programs in Scripts/ on Windows (Git Bash), in bin/ elsewhere.
case "$(uname -s)" in
    MINGW* | MSYS* | CYGWIN*) VENV_BIN="$VENV/Scripts" ;;
    *) VENV_BIN="$VENV/bin" ;;
esac

die() {
    echo "error: $*" >&2
    exit 1
}

# rustup puts cargo in ~/.cargo/bin, which a non-login shell (CI) may not have on PATH.
if ! command -v cargo >/dev/null && [ -x "$HOME/.cargo/bin/cargo" ]; then
    PATH="$HOME/.cargo/bin:$PATH"
fi

# The Blender releases the add-on is tested in: the newest in .venv (its bpy is pinned in
# tests/requirements.txt), and the LTS releases, each in a venv of its own with its bpy
# (.venv-blender-VERSION, made by scripts/setup). scripts/test runs tests/blender in each.
BLENDER_NEWEST=5.0.1
BLENDER_LTS=(4.2.23 4.5.15)
BLENDER_VERSIONS=("$BLENDER_NEWEST" "${BLENDER_LTS[@]}")

lts_venv_bin() {  # lts_venv_bin VERSION: the programs folder of that release's venv
    local venv="$ROOT/.venv-blender-$1"
    case "$(uname -s)" in
        MINGW* | MSYS* | CYGWIN*) echo "$venv/Scripts" ;;
        *) echo "$venv/bin" ;;
    esac
}

blender_venv_bin() {  # blender_venv_bin VERSION: the programs folder of the venv with that bpy
    if [ "$1" = "$BLENDER_NEWEST" ]; then
        echo "$VENV_BIN"
    else
        lts_venv_bin "$1"
    fi
}

# The Windows target the release cross-builds llamawad.exe and the Windows wheel for.
WINDOWS_TARGET=x86_64-pc-windows-gnu

windows_cross_tools() {  # whether this machine can cross-build for Windows and run it (Wine)
    command -v rustup >/dev/null && rustup target list --installed 2>/dev/null | grep -qx "$WINDOWS_TARGET" &&
        command -v x86_64-w64-mingw32-gcc >/dev/null &&
        { command -v wine64 >/dev/null || command -v wine >/dev/null || [ -x /usr/lib/wine/wine64 ]; }
}

require_venv() {
    [ -x "$VENV_BIN/python" ] && [ -x "$VENV_BIN/maturin" ] && [ -x "$VENV_BIN/pytest" ] ||
        die "$VENV is missing or incomplete: run scripts/setup first"
}

# Builds the Python bindings and installs them into the venv. Tests import the installed wheel,
# so this runs before every test run: the bindings under test are always the current code.
install_wheel() {
    local wheels="$ROOT/target/wheels"
    rm -f "$wheels"/llamawad-*.whl
    "$VENV_BIN/maturin" build --quiet --release -i "$VENV_BIN/python" \
        -m "$ROOT/rust/py/Cargo.toml" -o "$wheels"
    local bin
    # The wheel is abi3: the LTS venvs (where they exist) take the same one.
    for bin in "$VENV_BIN" $(for v in "${BLENDER_LTS[@]}"; do lts_venv_bin "$v"; done); do
        [ -x "$bin/pip" ] || continue
        "$bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps \
            "$wheels"/llamawad-*.whl
    done
}
