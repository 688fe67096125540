package mcp

import (
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/nodes"
)

func toolSwipe() toolDef {
	return newDeviceTool[nodes.SwipeArgs, nodes.SwipeResult]("swipe",
		"Swipe, in exactly one of three modes. (1) direction alone (HttpRunner): up goes from (0.5, 0.75) to (0.5, 0.25) "+
			"and scrolls the content toward its bottom; down from (0.5, 0.25) to (0.5, 0.75); left from (0.75, 0.5) to (0.25, 0.5); "+
			"right from (0.25, 0.5) to (0.75, 0.5); duration and press_duration optional. (2) from_x, from_y, to_x, to_y "+
			"(relative 0.0-1.0, HttpRunner), same options. (3) bbox with direction (PhysiClaw): the finger starts at the bbox's "+
			"centre and moves size (s 1 cm, m 2 cm, l 4 cm, xl 6 cm, xxl 8 cm; converted through the screen density, 420 dpi "+
			"assumed if the device cannot tell) in direction, clamped to the screen, at speed (slow 1000 ms, medium 400 ms, "+
			"fast 150 ms). The direction is where the finger moves, not the page.", action(false),
		mcpgo.WithString("direction", mcpgo.Enum("up", "down", "left", "right"),
			mcpgo.Description("Direction and bbox modes: where the finger moves (up, down, left or right)")),
		mcpgo.WithNumber("from_x", mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Coordinate mode: starting X coordinate (0.0-1.0)")),
		mcpgo.WithNumber("from_y", mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Coordinate mode: starting Y coordinate (0.0-1.0)")),
		mcpgo.WithNumber("to_x", mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Coordinate mode: ending X coordinate (0.0-1.0)")),
		mcpgo.WithNumber("to_y", mcpgo.Min(0), mcpgo.Max(1), mcpgo.Description("Coordinate mode: ending Y coordinate (0.0-1.0)")),
		mcpgo.WithNumber("duration", mcpgo.Min(0), mcpgo.Max(60), mcpgo.Description("Direction and coordinate modes: seconds the move takes (default 0.3)")),
		mcpgo.WithNumber("press_duration", mcpgo.Min(0), mcpgo.Max(60), mcpgo.Description("Direction and coordinate modes: seconds the finger presses before it moves (default 0)")),
		bboxParam(false, "Bbox mode: where the finger starts, the centre of [left, top, right, bottom] (relative 0-1, as peek lists them)"),
		mcpgo.WithString("size", mcpgo.Enum("s", "m", "l", "xl", "xxl"), mcpgo.Description("Bbox mode: how far the finger moves: s 1 cm, m 2 cm (default), l 4 cm, xl 6 cm, xxl 8 cm")),
		mcpgo.WithString("speed", mcpgo.Enum("slow", "medium", "fast"), mcpgo.Description("Bbox mode: slow (1000 ms), medium (400 ms, default) or fast (150 ms, flings lists)")),
	)
}
