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
    "$VENV_BIN/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps \
        "$wheels"/llamawad-*.whl
}
