package modelsim

import "testing"

func TestRequestBBox(t *testing.T) {
	req := Request{Messages: []Message{
		{Role: "user", Text: "e1 [button] \"Shop\" [0.100,0.200,0.300,0.400] 1.00\ne2 [text] \"Item 24\" [0,0.5,1,0.6] 1.00"},
		{Role: "assistant", Text: "I swipe"},
		{Role: "user", Text: "Goal: x\ne1 [button] \"Settings\" [0.000,0.292,0.250,0.429] 1.00\ne12 [text] \"Wi-Fi\" [0.1,0.2,0.9,0.3] 0.87"},
	}}
	if b, ok := req.BBox("Wi-Fi"); !ok || b != [4]float64{0.1, 0.2, 0.9, 0.3} {
		t.Errorf("Wi-Fi: %v %v", b, ok)
	}
	if b, ok := req.BBox("Settings"); !ok || b != [4]float64{0, 0.292, 0.25, 0.429} {
		t.Errorf("Settings: %v %v", b, ok)
	}
	if _, ok := req.BBox("Item 24"); ok {
		t.Error("found an element of an older listing, not the newest")
	}
	if _, ok := req.BBox("Wi"); ok {
		t.Error("a label matched by its prefix")
	}
	if _, ok := (Request{}).BBox("x"); ok {
		t.Error("found an element in no listing")
	}
}
