"""The level state kept in the .blend: ``Scene.llamawad`` (base WAD, the level's document
extras, the problems of the last check, the last export's summary) and the panels' inputs."""

import bpy
from bpy.props import BoolProperty, CollectionProperty, IntProperty, PointerProperty, StringProperty


def _select_problem(self, context):
    # Clicking a problem in the list selects its culprit (Level panel).
    problems = self.problems
    if 0 <= self.problem_index < len(problems):
        from .blender import faces

        faces.select_culprit(context, problems[self.problem_index].object, problems[self.problem_index].face_list())


def _show_collision(self, context):
    from .blender import scene

    scene.set_collision_visible(context, self.show_collision)


class LLAMAWAD_PG_problem(bpy.types.PropertyGroup):
    object: StringProperty(name="Object", description="The object at fault; empty for the level as a whole")
    faces: StringProperty(name="Faces", description="Indices of the faces at fault, separated by spaces")
    message: StringProperty(name="Problem")

    def face_list(self) -> list[int]:
        return [int(f) for f in self.faces.split()]


class LLAMAWAD_PG_scene(bpy.types.PropertyGroup):
    base_path: StringProperty(
        name="Base WAD",
        description="The level this scene was imported from. Export writes the scene against it: whatever was "
        "not changed keeps the base's bytes",
        subtype="FILE_PATH",
    )
    level_json: StringProperty(
        name="Level document",
        description="The level's glTF scene extras (grid, texture entries, zone masks, source) as JSON",
        options={"HIDDEN"},
    )
    import_warnings: StringProperty(name="Import warnings", options={"HIDDEN"})
    last_export: StringProperty(name="Last export", description="What the last export changed")
    problems: CollectionProperty(type=LLAMAWAD_PG_problem)
    problem_index: IntProperty(name="Problem", default=-1, update=_select_problem)
    checked: BoolProperty(name="Checked", description="The level check has run since the last change", default=False)
    show_collision: BoolProperty(
        name="Show collision",
        description="Show the collision meshes in the viewport (they never render)",
        default=True,
        update=_show_collision,
    )
    collision_material: IntProperty(
        name="Material",
        description="Collision material byte for the selected collision faces: 0 normal ground, 16 exit floor, "
        "17 and 18 special floors, 30 death plane or water",
        min=0,
        max=255,
    )
    zone: IntProperty(name="Zone", description="Visibility zone (0 to 31) for the selected cells", min=0, max=31)
    view_zone: IntProperty(
        name="Zone", description="The zone whose row of the visibility matrix is shown", min=0, max=31
    )


classes = (LLAMAWAD_PG_problem, LLAMAWAD_PG_scene)


def register():
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.Scene.llamawad = PointerProperty(type=LLAMAWAD_PG_scene)


def unregister():
    del bpy.types.Scene.llamawad
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
