package model_test

import (
	"reflect"
	"testing"

	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

func TestModels(t *testing.T) {
	srv := sim(t).Models("qwen2.5vl", "gpt-4o")
	ids, err := newClient(t, srv.BaseURL(), "gpt-4o").Models(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"gpt-4o", "qwen2.5vl"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("models = %v, want %v", ids, want)
	}
	wrong := modelsim.New().RequireKey("sk-other")
	t.Cleanup(wrong.Close)
	_, err = newClient(t, wrong.BaseURL(), "m").Models(t.Context())
	checkErr(t, err, model.ErrUnauthorized, "OPENAI_API_KEY")
}
