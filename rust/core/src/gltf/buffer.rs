//! The binary buffer of a glTF document: typed accessors over one growing byte vector.

use gltf::json::{
    self,
    accessor::{ComponentType, GenericComponentType, Type},
    buffer::Target,
    validation::{Checked::Valid, USize64},
    Index,
};

#[derive(Default)]
pub struct Buffer {
    pub bytes: Vec<u8>,
}

impl Buffer {
    fn view(
        &mut self,
        root: &mut json::Root,
        data: &[u8],
        target: Option<Target>,
    ) -> Index<json::buffer::View> {
        // Every accessor's offset must be a multiple of its component size; 4 covers all used here.
        self.bytes.resize(self.bytes.len().next_multiple_of(4), 0);
        let offset = self.bytes.len();
        self.bytes.extend_from_slice(data);
        root.push(json::buffer::View {
            buffer: Index::new(0),
            byte_length: USize64::from(data.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Valid),
            extensions: None,
            extras: None,
        })
    }

    /// An accessor of f32 values, `components` per element. Bounds are written where the format
    /// requires them (positions) or where `bounds` asks for them.
    pub fn floats(
        &mut self,
        root: &mut json::Root,
        values: &[f32],
        components: usize,
        bounds: bool,
    ) -> Index<json::Accessor> {
        let type_ = match components {
            1 => Type::Scalar,
            2 => Type::Vec2,
            3 => Type::Vec3,
            4 => Type::Vec4,
            _ => unreachable!("accessors have 1 to 4 components"),
        };
        let count = values.len() / components;
        let (min, max) = if bounds && count > 0 {
            let mut min = vec![f32::INFINITY; components];
            let mut max = vec![f32::NEG_INFINITY; components];
            for element in values.chunks_exact(components) {
                for (k, &v) in element.iter().enumerate() {
                    min[k] = min[k].min(v);
                    max[k] = max[k].max(v);
                }
            }
            (Some(json::Value::from(min)), Some(json::Value::from(max)))
        } else {
            (None, None)
        };
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.view(root, &bytes, Some(Target::ArrayBuffer));
        root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Valid(GenericComponentType(ComponentType::F32)),
            extensions: None,
            extras: None,
            type_: Valid(type_),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    /// An image stored in the buffer (valid in both .glb and .gltf files).
    pub fn png(&mut self, root: &mut json::Root, png: &[u8], name: String) -> Index<json::Image> {
        let view = self.view(root, png, None);
        root.push(json::Image {
            buffer_view: Some(view),
            mime_type: Some(json::image::MimeType("image/png".to_string())),
            name: Some(name),
            uri: None,
            extensions: None,
            extras: None,
        })
    }
}
