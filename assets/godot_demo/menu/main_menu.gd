extends Control


func _on_market_pressed() -> void:
	get_tree().change_scene_to_file("res://levels/market.tscn")


func _on_harbor_pressed() -> void:
	get_tree().change_scene_to_file("res://levels/harbor.tscn")


func _on_quit_pressed() -> void:
	get_tree().quit()
