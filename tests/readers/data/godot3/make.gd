extends SceneTree

func _init():
	var mat = SpatialMaterial.new()
	mat.albedo_color = Color(1, 0, 0)
	var img = Image.new()
	img.create(4, 4, false, Image.FORMAT_RGBA8)
	var st = SurfaceTool.new()
	st.begin(Mesh.PRIMITIVE_TRIANGLES)
	st.add_uv(Vector2(0, 0))
	st.add_vertex(Vector3(0, 0, 0))
	st.add_uv(Vector2(1, 0))
	st.add_vertex(Vector3(1, 0, 0))
	st.add_uv(Vector2(0, 1))
	st.add_vertex(Vector3(0, 1, 0))
	st.index()
	var mesh = st.commit()
	mesh.surface_set_material(0, mat)
	print(ResourceSaver.save("res://tri.res", mesh))
	print(ResourceSaver.save("res://tri.tres", mesh))
	var m2 = SpatialMaterial.new()
	print(ResourceSaver.save("res://red.tres", m2))
	var root = Spatial.new()
	root.name = "Town"
	var mi = MeshInstance.new()
	mi.name = "Barrel"
	mi.mesh = load("res://tri.res")
	mi.set_surface_material(0, load("res://red.tres"))
	root.add_child(mi)
	mi.owner = root
	var mm = MultiMeshInstance.new()
	mm.name = "Crowd"
	var multi = MultiMesh.new()
	multi.transform_format = MultiMesh.TRANSFORM_3D
	multi.mesh = load("res://tri.res")
	multi.instance_count = 7
	mm.multimesh = multi
	root.add_child(mm)
	mm.owner = root
	var ps = PackedScene.new()
	ps.pack(root)
	print(ResourceSaver.save("res://part.scn", ps))
	print(ResourceSaver.save("res://part.tscn", ps))
	var root2 = Spatial.new()
	root2.name = "Level"
	for i in range(3):
		var inst = load("res://part.scn").instance()
		inst.name = "Part%d" % i
		root2.add_child(inst)
		inst.owner = root2
	var ps2 = PackedScene.new()
	ps2.pack(root2)
	print(ResourceSaver.save("res://level.scn", ps2))
	print(ResourceSaver.save("res://level.tscn", ps2))
	quit()
