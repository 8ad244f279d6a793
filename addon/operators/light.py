"""Light panel operators: bake the scene's light into vertex colours, and fit the light to the
level's own colours. From the panel both run a step at a time, as Blender's own bakes do."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import bpy
from bpy.props import BoolProperty

from ..blender import light
from ..blender import scene as level_scene
from ..blender.convert import Refusal
from ..blender.modes import object_mode


class _Stepped:
    """An operator whose work is a generator of steps (``light.baking``, ``light.fitting``): run
    from the panel, a step at each timer tick, its progress in the status bar, Esc stopping it
    with the scene as it was; run from a script, in one go."""

    # What the status bar and the reports call the work: "Baking lighting", "Not baked".
    doing = ""
    failed = ""
    stopped = ""

    _steps: Generator[tuple[int, int], None, Any] | None = None
    _timer = None

    @classmethod
    def poll(cls, context):
        return level_scene.has_level(context.scene)

    def steps(self, context) -> Generator[tuple[int, int], None, Any] | None:
        """The work's steps, or None with the reason reported."""
        raise NotImplementedError

    def finished(self, context, result) -> set[str]:
        raise NotImplementedError

    def execute(self, context):
        try:
            with object_mode(context):
                steps = self.steps(context)
                if steps is None:
                    return {"CANCELLED"}
                result = light.run(steps)
        except (Refusal, ValueError) as e:
            self.report({"ERROR"}, f"{self.failed}: {e}")
            return {"CANCELLED"}
        return self.finished(context, result)

    def invoke(self, context, event):
        if context.mode != "OBJECT":
            # The meshes are read at each step: edit mode's changes must be in them.
            bpy.ops.object.mode_set(mode="OBJECT")
        try:
            self._steps = self.steps(context)
        except (Refusal, ValueError) as e:
            self.report({"ERROR"}, f"{self.failed}: {e}")
            return {"CANCELLED"}
        if self._steps is None:
            return {"CANCELLED"}
        wm = context.window_manager
        self._timer = wm.event_timer_add(0.01, window=context.window)
        wm.progress_begin(0, 1)
        wm.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def modal(self, context, event):
        if event.type == "ESC":
            self._steps.close()
            self._end(context)
            self.report({"WARNING"}, self.stopped)
            return {"CANCELLED"}
        if event.type != "TIMER":
            return {"PASS_THROUGH"}
        try:
            done, total = next(self._steps)
        except StopIteration as finished:
            self._end(context)
            return self.finished(context, finished.value)
        except (Refusal, ValueError) as e:
            self._end(context)
            self.report({"ERROR"}, f"{self.failed}: {e}")
            return {"CANCELLED"}
        context.window_manager.progress_update(done / total)
        context.workspace.status_text_set(f"{self.doing}: {done * 100 // total} % (Esc to stop)")
        return {"RUNNING_MODAL"}

    def _end(self, context):
        wm = context.window_manager
        wm.event_timer_remove(self._timer)
        wm.progress_end()
        context.workspace.status_text_set(None)


class LLAMAWAD_OT_bake_light(_Stepped, bpy.types.Operator):
    """Bake the Light panel's sun, sky and ambient occlusion into the vertex colours of the
    selected tiles and new meshes (or of the whole level), cast against the level as export
    writes it"""

    bl_idname = "llamawad.bake_light"
    bl_label = "Bake Lighting"
    bl_options = {"REGISTER", "UNDO"}

    whole_level: BoolProperty(name="Whole level", description="Every tile and new mesh; off: the selected ones", default=False)

    doing = "Baking lighting"
    failed = "Not baked"
    stopped = "Bake stopped: the colours are as they were"

    def steps(self, context):
        objects = light.targets(context, self.whole_level)
        if not objects:
            self.report({"ERROR"}, "Nothing to bake: select tiles or new meshes, or bake the whole level")
            return None
        return light.baking(context, objects, animated=context.scene.llamawad.light_animated)

    def finished(self, context, baked):
        for note in baked.notes:
            self.report({"WARNING"}, note)
        if not baked.objects:
            self.report({"ERROR"}, "Nothing baked: every object chosen was left as it was (see the warnings)")
            return {"CANCELLED"}
        self.report({"INFO"}, f"Baked {len(baked.objects)} objects ({baked.vertices} vertices) against {baked.source}")
        return {"FINISHED"}


class LLAMAWAD_OT_fit_light(_Stepped, bpy.types.Operator):
    """Set the Light panel to the sun, sky and occlusion that explain the level's own vertex
    colours best, so that a bake of new geometry matches what is around it"""

    bl_idname = "llamawad.fit_light"
    bl_label = "Fit Lighting to the Level"
    bl_options = {"REGISTER", "UNDO"}

    doing = "Fitting lighting"
    failed = "No fit"
    stopped = "Fit stopped: the light is as it was"

    def steps(self, context):
        return light.fitting(context)

    def finished(self, context, found):
        summary = f"{found['error']:.1f} colour steps unexplained over {found['vertices']} vertices of {found['source']}"
        context.scene.llamawad.light_fit = summary
        self.report({"INFO"}, f"Light fitted: {summary}")
        return {"FINISHED"}


classes = (LLAMAWAD_OT_bake_light, LLAMAWAD_OT_fit_light)
