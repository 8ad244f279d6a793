# Shared by the scripts in this folder; sourced, not run. Sets ROOT to the repository root.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"

die() {
    echo "error: $*" >&2
    exit 1
}

# rustup puts cargo in ~/.cargo/bin, which a non-login shell (CI) may not have on PATH.
if ! command -v cargo >/dev/null && [ -x "$HOME/.cargo/bin/cargo" ]; then
    PATH="$HOME/.cargo/bin:$PATH"
fi

require_venv() {
    [ -x "$VENV/bin/python" ] && [ -x "$VENV/bin/maturin" ] && [ -x "$VENV/bin/pytest" ] ||
        die "$VENV is missing or incomplete: run scripts/setup first"
}

# Builds the Python bindings and installs them into the venv. Tests import the installed wheel,
# so this runs before every test run: the bindings under test are always the current code.
install_wheel() {
    local wheels="$ROOT/target/wheels"
    rm -f "$wheels"/llamawad-*.whl
    "$VENV/bin/maturin" build --quiet --release -i "$VENV/bin/python" \
        -m "$ROOT/rust/py/Cargo.toml" -o "$wheels"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps \
        "$wheels"/llamawad-*.whl
}
