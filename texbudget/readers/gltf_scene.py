"""A glTF's scene graph: how many times each mesh is placed, which meshes are skinned, and
their LODs.

Nodes are walked once, iteratively, over the default scene (all scenes when none is set, all
root nodes when there are no scenes). A mesh used by 40 nodes has 40 instances;
EXT_mesh_gpu_instancing multiplies by its instance count. A node with a skin makes its mesh
skinned. LODs come from MSFT_lod (LOD0 is the node's mesh); names (``_LODn``) are the meshes'.
A link that breaks the tree (a second parent, a cycle) is dropped and reported (TB080); the
walk takes time linear in nodes plus scene entries whatever the file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from texbudget.model import MeshFacts
from texbudget.readers.gltf_accessors import Layout
from texbudget.readers.gltf_container import Context, index
from texbudget.readers.gltf_schema import Node


class Placement(msgspec.Struct, gc=False):
    """What the walk found: instances per mesh (by index; empty when the file has no nodes),
    the skinned meshes, and (level, group) of the meshes MSFT_lod places."""

    counts: list[int]
    skinned: set[int]
    lods: dict[int, tuple[int, str]]


class SceneGraph:
    """One file's nodes and scenes."""

    __slots__ = ("ctx", "layout", "nodes")

    def __init__(self, ctx: Context, layout: Layout) -> None:
        self.ctx = ctx
        self.layout = layout
        self.nodes: list[Node] = ctx.doc.nodes or []

    def walk(self, meshes: Mapping[int, MeshFacts]) -> Placement:
        """Instances of each mesh in ``meshes`` (by index: the meshes that are priced), with
        TB084 for a priced mesh no node of the walked scenes places."""
        nodes = self.nodes
        n_meshes = len(self.ctx.doc.meshes or ())
        n_skins = len(self.ctx.doc.skins or ())
        children, has_parent = self.tree()
        node_mesh: list[int | None] = []
        node_multiplier: list[int] = []
        skinned: set[int] = set()
        lods: dict[int, list[int]] = {}
        for k, node in enumerate(nodes):
            m = node.mesh
            if m is not None:
                if not 0 <= m < n_meshes:
                    index(m, f"node {k}: 'mesh'", n_meshes, "mesh")
                skin = node.skin
                if skin is not None:
                    if not 0 <= skin < n_skins:
                        index(skin, f"node {k}: 'skin'", n_skins, "skin")
                    skinned.add(m)
            node_mesh.append(m)
            exts = node.extensions
            if exts is None:
                node_multiplier.append(1)
                continue
            instancing = exts.gpu_instancing
            where = f"node {k} EXT_mesh_gpu_instancing"
            node_multiplier.append(1 if instancing is None else self.layout.instances(instancing.attributes or {}, where))
            if exts.lod is not None:
                n = len(nodes)
                lods[k] = [x if 0 <= x < n else index(x, f"node {k} MSFT_lod ids", n, "node") for x in exts.lod.ids or ()]
        counts = [0] * n_meshes
        reach = self.reach(children, has_parent)  # node -> scenes reaching it
        for k, times in enumerate(reach):
            if times:
                m = node_mesh[k]
                if m is not None:
                    counts[m] += times * node_multiplier[k]
        lod_of_mesh: dict[int, tuple[int, str]] = {}
        for host, ids in lods.items():
            host_mesh = node_mesh[host]
            if host_mesh is None:
                continue
            group = f"{self.ctx.rel}#lod/node/{host}"
            lod_of_mesh.setdefault(host_mesh, (0, group))
            for level, k in enumerate(ids, start=1):
                m = node_mesh[k]
                if m is None:
                    continue
                lod_of_mesh.setdefault(m, (level, group))
                if not reach[k]:  # LOD nodes live outside the tree: placed where the host is
                    counts[m] += reach[host] * node_multiplier[host]
        if not nodes:
            return Placement(counts=[], skinned=skinned, lods=lod_of_mesh)
        if 0 in counts:
            for m, facts in meshes.items():
                if counts[m] == 0:
                    self.ctx.note("TB084", f"mesh {m} ({facts.name}) is used by no node of the scene")
        return Placement(counts=counts, skinned=skinned, lods=lod_of_mesh)

    def tree(self) -> tuple[list[list[int]], list[bool]]:
        """Children per node with every link that breaks the tree (a second parent, a cycle)
        dropped and reported; and whether each node has a parent."""
        nodes = self.nodes
        note = self.ctx.note
        n = len(nodes)
        parent: list[int | None] = [None] * n
        children: list[list[int]] = [[]] * n  # one shared empty list until a node has children
        linked = own_lists = False
        for k, node in enumerate(nodes):
            if not node.children:
                continue
            if not own_lists:
                children, own_lists = [[] for _ in range(n)], True
            for c in node.children:
                if not 0 <= c < n:
                    index(c, f"node {k} children", n, "node")
                if c == k:
                    note("TB080", f"node {k} lists itself as a child (a cycle); the link was ignored")
                elif parent[c] is not None:
                    note("TB080", f"node {c} has two parents (nodes {parent[c]} and {k}); the link from {k} was ignored")
                else:
                    parent[c] = k
                    children[k].append(c)
                    linked = True
        if not linked:  # no link, no cycle
            return children, [False] * n
        # With one parent each, a cycle is a loop of parent links: follow them, colouring.
        state = [0] * n  # 0 new, 1 on the current path, 2 done
        for start in range(n):
            path: list[int] = []
            at: int | None = start
            while at is not None and state[at] == 0:
                state[at] = 1
                path.append(at)
                at = parent[at]
            if at is not None and state[at] == 1:  # at's chain came back to itself
                loop = path[path.index(at):]
                p = parent[at]
                assert p is not None
                cycle = [at, *reversed(loop[1:]), at]  # in child order, ending with the dropped link
                note("TB080", f"nodes {' → '.join(map(str, cycle))} form a cycle; the link from {p} to {at} was ignored")
                children[p].remove(at)
                parent[at] = None
            for x in path:
                state[x] = 2
        return children, [p is not None for p in parent]

    def reach(self, children: list[list[int]], has_parent: list[bool]) -> list[int]:
        """In how many walked scenes each node is reached (a scene reaches a node once).

        Linear in nodes plus scene entries, whatever the file: walking each scene's tree in
        turn costs scenes × depth, and a file of 10,000 scenes that each list the top of a
        10,000-node chain (half a megabyte) would take minutes. Instead the forest is numbered
        once in depth-first order (a node's subtree is the interval [enter, leave)); a listed
        node inside the interval of another listed node of its scene is reached twice (TB080,
        counted once), the others start a branch, and a node's reach is the number of
        branches started at it or above it. A forest without links (the usual flat scene) is
        numbered by the nodes' own indices."""
        n = len(self.nodes)
        flat = not any(has_parent)
        enter: Sequence[int]
        leave: Sequence[int]
        order: Sequence[int]
        if flat:
            enter, leave, order = range(n), range(1, n + 1), range(n)
        else:
            enter, leave, order = _number_forest(children, has_parent)
        starts = [0] * n
        for roots in self.scene_roots(has_parent):
            open_until = -1
            for k in sorted(roots, key=None if flat else enter.__getitem__):  # stable: a node listed twice stays in order
                if enter[k] < open_until:
                    self.ctx.note("TB080", f"node {k} is reached twice in one scene (the scene lists a node that is also a child); counted once")
                    continue
                starts[k] += 1
                open_until = leave[k]
        if flat:
            return starts
        reach = [0] * n
        for k in order:  # parents before children
            reach[k] += starts[k]
            for c in children[k]:
                reach[c] += reach[k]
        return reach

    def scene_roots(self, has_parent: list[bool]) -> list[list[int]]:
        """The nodes each walked scene lists: the default scene, else every scene, else (no
        scenes) every node without a parent."""
        doc = self.ctx.doc
        n = len(self.nodes)
        scenes = doc.scenes or []
        if not scenes:
            return [[k for k in range(n) if not has_parent[k]]]
        default = doc.scene
        if default is not None and not 0 <= default < len(scenes):
            index(default, "the document: 'scene'", len(scenes), "scene")
        walked: list[list[int]] = []
        for s in [default] if default is not None else range(len(scenes)):
            roots = scenes[s].nodes or []
            if roots and not (min(roots) >= 0 and max(roots) < n):
                for x in roots:
                    index(x, f"scene {s} nodes", n, "node")
            walked.append(roots)
        return walked


def _number_forest(children: list[list[int]], has_parent: list[bool]) -> tuple[list[int], list[int], list[int]]:
    """The forest numbered in depth-first order: (enter, leave, order); a node's subtree is
    the interval [enter, leave) of ``order``."""
    n = len(children)
    enter, leave = [0] * n, [0] * n
    order: list[int] = []
    for top in range(n):
        if has_parent[top]:
            continue
        stack: list[tuple[int, bool]] = [(top, False)]
        while stack:
            k, done = stack.pop()
            if done:
                leave[k] = len(order)
                continue
            enter[k] = len(order)
            order.append(k)
            stack.append((k, True))
            stack.extend((c, False) for c in reversed(children[k]))
    return enter, leave, order
