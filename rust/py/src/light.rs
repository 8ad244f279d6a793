//! Light baked into vertex colours and fitted to a level's (the core's `game::light`): arguments
//! in, the level's bytes and plain dicts out.

use std::borrow::Cow;

use llamawad::game::light::{
    self, BakeOptions, FitOptions, FitStep, Fitting, Lamp, Lighting, Which,
};
use llamawad::{Level, WadError as CoreError};
use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::{bytes_input, detach, items, to_python, Failure, WadError};

// The signatures spell the default out, so that Python's help and the stubs show the number.
const _: () = assert!(light::DEFAULT_RAYS == 64);

/// bake(level: bytes, sun_direction: tuple[float, float, float], sun_colour: tuple[float, float, float], sky_colour: tuple[float, float, float], occlusion: float = 1.0, tiles: list[int] | None = None, unlit: bool = False, rays: int = 64, animated: bool = False) -> tuple[bytes, dict]
///
/// The level with sun, sky and ambient occlusion baked into its tiles' vertex colours (all, the
/// `tiles` listed, or with `unlit` those of one colour), against the faces of every tile; game
/// space, the sun's direction the way its light travels, colours 1.0 = raw 0x80 (what `llamawad
/// bake` does). Returns the level's bytes and the report (`baked`, `animated_kept`, `vertices`).
/// Raises WadError for a level that cannot be read and for light or tiles it cannot bake, more
/// than 1,048,576 faces to cast against, and more than 4,194,304 rays (vertices × (rays + 1)).
#[pyfunction]
#[pyo3(signature = (level, sun_direction, sun_colour, sky_colour, occlusion = 1.0, tiles = None, unlit = false, rays = 64, animated = false))]
#[allow(clippy::too_many_arguments)]
pub fn bake<'py>(
    py: Python<'py>,
    level: Cow<'_, [u8]>,
    sun_direction: [f32; 3],
    sun_colour: [f32; 3],
    sky_colour: [f32; 3],
    occlusion: f32,
    tiles: Option<Vec<usize>>,
    unlit: bool,
    rays: u32,
    animated: bool,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyAny>)> {
    let lighting = Lighting {
        sun_direction,
        sun_colour,
        sky_colour,
        occlusion,
    };
    let options = BakeOptions {
        which: Which::of(tiles, unlit),
        rays,
        animated,
    };
    let (bytes, report) = detach(
        py,
        || bytes_input("a level", &level),
        || {
            let mut parsed = Level::parse(&level)?;
            let report = light::bake(&mut parsed, &lighting, &options, &|_, _| {})
                .map_err(|e| e.to_string())?;
            let bytes = parsed.to_bytes().map_err(CoreError::from)?;
            Ok::<_, Failure>((bytes, report))
        },
    )??;
    Ok((PyBytes::new(py, &bytes), to_python(py, &report)?))
}

/// A lamp as Python gives it: `{"kind": "sun", "direction", "colour"}` or `{"kind": "point",
/// "position", "colour", "cutoff"}` (cutoff optional).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct LampItem {
    kind: String,
    #[pyo3(default)]
    direction: Option<[f32; 3]>,
    #[pyo3(default)]
    position: Option<[f32; 3]>,
    colour: [f32; 3],
    #[pyo3(default)]
    cutoff: Option<f32>,
}

impl LampItem {
    fn lamp(&self, k: usize) -> PyResult<Lamp> {
        match (self.kind.as_str(), self.direction, self.position) {
            ("sun", Some(direction), _) => Ok(Lamp::Sun {
                direction,
                colour: self.colour,
            }),
            ("point", _, Some(position)) => Ok(Lamp::Point {
                position,
                colour: self.colour,
                cutoff: self.cutoff.unwrap_or(f32::INFINITY),
            }),
            _ => Err(WadError::new_err(format!(
                "lamps[{k}]: a \"sun\" with a direction or a \"point\" with a position"
            ))),
        }
    }
}

/// bake_points(level: bytes, positions: Buffer, normals: Buffer, sun_direction: tuple[float, float, float], sun_colour: tuple[float, float, float], sky_colour: tuple[float, float, float], occlusion: float = 1.0, lamps: list[dict] | None = None, rays: int = 64) -> bytes
///
/// The raw colours (R, G, B bytes a point) the light gives points standing among the level's
/// tiles, as `bake` gives a tile's vertices: `positions` and `normals` float32 buffers of three
/// values a point, world game space. `lamps` adds lights of the artist's: `{"kind": "sun",
/// "direction", "colour"}` (colour · max(0, n · −direction)) or `{"kind": "point", "position",
/// "colour", "cutoff"}` (colour · max(0, n · l) / d², none past cutoff), colours scaled by their
/// strength, shown scale, unlit where the level's faces hide them. For geometry the level does
/// not hold yet (the add-on's Bake lighting). Raises WadError for a level that cannot be read,
/// buffers of other lengths, values that are not numbers, a lamp that is no such dict (naming
/// it: `lamps[k]`), light it cannot bake, more than 1,048,576 faces to cast against, and more
/// than 4,194,304 rays (points × (rays + 1 + lamps)).
#[pyfunction]
#[pyo3(signature = (level, positions, normals, sun_direction, sun_colour, sky_colour, occlusion = 1.0, lamps = None, rays = 64))]
#[allow(clippy::too_many_arguments)]
pub fn bake_points<'py>(
    py: Python<'py>,
    level: Cow<'_, [u8]>,
    positions: PyBuffer<f32>,
    normals: PyBuffer<f32>,
    sun_direction: [f32; 3],
    sun_colour: [f32; 3],
    sky_colour: [f32; 3],
    occlusion: f32,
    lamps: Option<Vec<Bound<'py, PyAny>>>,
    rays: u32,
) -> PyResult<Bound<'py, PyBytes>> {
    let lamps = items::<LampItem>("lamps", &lamps.unwrap_or_default())?
        .iter()
        .enumerate()
        .map(|(k, l)| l.lamp(k))
        .collect::<PyResult<Vec<_>>>()?;
    let count = positions.item_count();
    if count % 3 != 0 || normals.item_count() != count || count / 3 > light::MAX_POINTS {
        return Err(WadError::new_err(format!(
            "bake_points: {count} position values and {} normal values: three of each a \
             point, at most {} points",
            normals.item_count(),
            light::MAX_POINTS
        )));
    }
    let (positions, normals) = (positions.to_vec(py)?, normals.to_vec(py)?);
    let lighting = Lighting {
        sun_direction,
        sun_colour,
        sky_colour,
        occlusion,
    };
    let colours = detach(
        py,
        || bytes_input("a level", &level),
        || {
            let parsed = Level::parse(&level)?;
            let points: Vec<([f32; 3], [f32; 3])> = positions
                .chunks_exact(3)
                .zip(normals.chunks_exact(3))
                .map(|(p, n)| ([p[0], p[1], p[2]], [n[0], n[1], n[2]]))
                .collect();
            light::bake_points(&parsed, &points, &lighting, &lamps, rays, &|_, _| {})
                .map_err(|e| Failure::from(e.to_string()))
        },
    )??;
    Ok(PyBytes::new(py, colours.as_flattened()))
}

/// fit_light(level: bytes, rays: int = 64) -> dict
///
/// The light that explains the level's vertex colours best (what `llamawad fit-light --json`
/// prints): `lighting` (`sun_direction`, `sun_colour`, `sky_colour`, `occlusion`, as `bake`
/// takes them), `error` (root mean square left unexplained, in raw colour steps) and `vertices`.
/// Raises WadError for a level that cannot be read or has nothing to fit to.
#[pyfunction]
#[pyo3(signature = (level, rays = 64))]
pub fn fit_light<'py>(
    py: Python<'py>,
    level: Cow<'_, [u8]>,
    rays: u32,
) -> PyResult<Bound<'py, PyAny>> {
    let fitted = detach(
        py,
        || bytes_input("a level", &level),
        || {
            let parsed = Level::parse(&level)?;
            light::fit(&parsed, &FitOptions { rays }).map_err(|e| Failure::from(e.to_string()))
        },
    )??;
    to_python(py, &fitted)
}

/// LightFitting(level: bytes, rays: int = 64)
///
/// `fit_light` a step at a time, for a tool that shows progress and stops on request: `step()`
/// casts some 65,000 rays and returns (rays cast, rays in all), or None once the fit is done and
/// `result` holds what `fit_light` returns. Dropping it between steps stops the fit. Raises
/// WadError as `fit_light` does, from the constructor (no ray is cast there).
#[pyclass(module = "llamawad")]
pub struct LightFitting {
    fitting: Option<Fitting>,
    #[pyo3(get)]
    result: Option<Py<PyAny>>,
}

#[pymethods]
impl LightFitting {
    #[new]
    #[pyo3(signature = (level, rays = 64))]
    fn new(py: Python<'_>, level: Cow<'_, [u8]>, rays: u32) -> PyResult<LightFitting> {
        let fitting = detach(
            py,
            || bytes_input("a level", &level),
            || {
                let parsed = Level::parse(&level).map_err(|e| CoreError::from(e).to_string())?;
                Fitting::new(&parsed, &FitOptions { rays }).map_err(|e| e.to_string())
            },
        )?
        .map_err(WadError::new_err)?;
        Ok(LightFitting {
            fitting: Some(fitting),
            result: None,
        })
    }

    /// step() -> tuple[int, int] | None
    fn step(&mut self, py: Python<'_>) -> PyResult<Option<(u64, u64)>> {
        let Some(fitting) = self.fitting.as_mut() else {
            return Ok(None);
        };
        match detach(py, || "a light fit".to_string(), || fitting.step())? {
            FitStep::Working { done, total } => Ok(Some((done, total))),
            FitStep::Done(fit) => {
                self.fitting = None;
                self.result = Some(to_python(py, &fit)?.unbind());
                Ok(None)
            }
        }
    }
}
