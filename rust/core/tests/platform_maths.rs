//! Every byte we write (WAD, glTF, GLB, PNG, baked colours) is the same from every platform's
//! build for the same input, so nothing on the way may take its numbers from the platform's maths
//! library, whose last bits differ from system to system (a Windows build wrote other strat
//! rotations into the glTF than the Linux build). Clippy checks the calls by type where it is run
//! (`disallowed-methods`, rust/clippy.toml); this test holds every source file of the core, the
//! command-line tool and the bindings that is no test to the same list in every test run, and
//! pins glam to the same arithmetic on every platform (its `libm` and `scalar-math` features,
//! Cargo.toml).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use glam::{DMat3, Quat, Vec4};
use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// The standard library's float functions (f32 and f64 alike) that call the platform's C maths
/// library (`mul_add` where the CPU has no fused multiply-add): the libm crate has each
/// (`libm::sinf`, `libm::atan2`, `libm::fma`, …). Left out as the same
/// everywhere: what IEEE 754 rounds exactly (`sqrt`, `floor`, `round`, `abs`, `rem_euclid`),
/// `powi` (the compiler's own multiplications) and `to_degrees`, `to_radians` (one
/// multiplication).
const PLATFORM_MATHS: &[&str] = &[
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sin_cos", "sinh", "cosh", "tanh",
    "asinh", "acosh", "atanh", "exp", "exp2", "exp_m1", "ln", "ln_1p", "log", "log2", "log10",
    "powf", "cbrt", "hypot", "mul_add",
];

/// The crates whose code writes what we write.
const SOURCES: &[&str] = &["core/src", "cli/src", "py/src"];

fn rust_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

#[test]
fn clippy_disallows_every_platform_maths_function() {
    let config = std::fs::read_to_string(rust_dir().join("clippy.toml")).unwrap();
    let disallowed: BTreeSet<String> = config
        .split("path = \"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap().to_string())
        .collect();
    let expected: BTreeSet<String> = ["f32", "f64"]
        .iter()
        .flat_map(|ty| PLATFORM_MATHS.iter().map(move |f| format!("{ty}::{f}")))
        .collect();
    assert_eq!(disallowed, expected);
}

#[test]
fn no_code_but_tests_calls_the_platform_maths_library() {
    let mut found = Vec::new();
    for dir in SOURCES {
        for file in rust_files(&rust_dir().join(dir)) {
            let source = std::fs::read_to_string(&file).unwrap();
            for (line, name) in platform_calls(&source) {
                let file = file.strip_prefix(rust_dir()).unwrap();
                found.push(format!("rust/{}:{line}: {name}", file.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the platform's maths library on the way to what we write (use the libm crate's, or \
         arithmetic; a test's own inputs and expected values may \
         #[allow(clippy::disallowed_methods)]):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_finds_calls_in_code_and_macros_and_skips_tests() {
    let source = r#"
        fn f(x: f32) -> f32 {
            x.sin() + f64::atan2(1.0, 2.0) as f32
        }
        fn g(x: f32) { println!("{}", x.powf(2.0)); }
        // x.cos() in a comment, and in a string: "x.cos()"
        fn h(sin: f32, x: f32) -> f32 { sin.abs() + x.sqrt() + (0.0..1.0).start }
        #[allow(clippy::disallowed_methods)]
        fn allowed(x: f32) -> f32 { x.exp() }
        #[cfg(test)]
        mod tests {
            fn t(x: f32) -> f32 { x.ln() }
        }
        fn last(x: f64) -> f64 { x.mul_add(2.0, 1.0) }
    "#;
    assert_eq!(
        platform_calls(source),
        [(3, "sin"), (3, "atan2"), (5, "powf"), (14, "mul_add")].map(|(l, n)| (l, n.to_string()))
    );
}

/// glam's turns (`Quat::from_rotation_y`, `DMat3::from_rotation_y`, `from_rotation_arc`'s half
/// turn) take libm's sines, not the platform's.
#[test]
fn glam_turns_take_libm_sines() {
    for step in 0..4096 {
        let angle = step as f32 / 4096.0 * std::f32::consts::TAU;
        let (sin, cos) = libm::sincosf(angle * 0.5);
        assert_eq!(
            Quat::from_rotation_y(angle).to_array(),
            [0.0, sin, 0.0, cos],
            "{step}"
        );
        let angle = angle as f64;
        let (sin, cos) = libm::sincos(angle);
        let m = DMat3::from_rotation_y(angle).to_cols_array();
        assert_eq!([m[0], m[2], m[6], m[8]], [cos, -sin, sin, cos], "{step}");
    }
}

/// glam's vectors sum a dot product in one order on every CPU: SSE2 would give 2 here, NEON 0.
#[test]
fn glam_sums_in_the_same_order_everywhere() {
    let v = Vec4::new(1e8, 1.0, -1e8, 1.0);
    assert_eq!(v.dot(Vec4::ONE), 1.0);
    assert_eq!(Quat::from_vec4(v).dot(Quat::from_vec4(Vec4::ONE)), 1.0);
}

/// Every .rs file under `dir` but test modules kept in files of their own (`tests.rs`,
/// `tests/`), which their parents declare `#[cfg(test)]`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "tests" {
                files.extend(rust_files(&path));
            }
        } else if name.ends_with(".rs") && name != "tests.rs" {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// Where a source calls a function of [`PLATFORM_MATHS`] as a method (`x.sin()`) or by its
/// path (`f64::sin(x)`), in code and in macros' arguments alike: (line, name). Comments and
/// strings are no code (the source is read as Rust's tokens); an item or statement under
/// `#[cfg(test)]` or `#[allow(clippy::disallowed_methods)]` is skipped, as clippy skips it.
fn platform_calls(source: &str) -> Vec<(usize, String)> {
    let tokens = TokenStream::from_str(source).expect("the source is Rust's tokens");
    let mut found = Vec::new();
    scan(tokens, &mut found);
    found
}

fn scan(stream: TokenStream, found: &mut Vec<(usize, String)>) {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    let punct =
        |i: usize, c: char| matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == c);
    let mut i = 0;
    while i < tokens.len() {
        if punct(i, '#') && punct(i + 1, '!') && skips(tokens.get(i + 2)) {
            return; // an inner attribute: the whole module or block
        }
        if punct(i, '#') && skips(tokens.get(i + 1)) {
            i = end_of_item(&tokens, i + 2);
            continue;
        }
        match &tokens[i] {
            TokenTree::Group(group) => scan(group.stream(), found),
            TokenTree::Ident(ident) if PLATFORM_MATHS.contains(&ident.to_string().as_str()) => {
                let called = matches!(tokens.get(i + 1),
                    Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis);
                let method = i >= 1 && punct(i - 1, '.') && !(i >= 2 && punct(i - 2, '.'));
                let of_a_float = i >= 3
                    && punct(i - 1, ':')
                    && punct(i - 2, ':')
                    && matches!(&tokens[i - 3], TokenTree::Ident(t) if t == "f32" || t == "f64");
                if (method && called) || of_a_float {
                    found.push((ident.span().start().line, ident.to_string()));
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// Whether an attribute's brackets say to skip what it is on: `cfg(test)`, or an allow of
/// `clippy::disallowed_methods`.
fn skips(attribute: Option<&TokenTree>) -> bool {
    let Some(TokenTree::Group(group)) = attribute else {
        return false;
    };
    let text: String = group.stream().to_string().split_whitespace().collect();
    group.delimiter() == Delimiter::Bracket
        && (text == "cfg(test)"
            || (text.starts_with("allow(") && text.contains("clippy::disallowed_methods")))
}

/// The token after the item or statement starting at `i` (after its attribute): its block, or
/// its semicolon, ends it.
fn end_of_item(tokens: &[TokenTree], mut i: usize) -> usize {
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => return i + 1,
            TokenTree::Punct(p) if p.as_char() == ';' => return i + 1,
            _ => i += 1,
        }
    }
    i
}
