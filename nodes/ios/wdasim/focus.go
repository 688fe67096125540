package wdasim

import "context"

// notesApp is the simulated phone's one app with a text field, its note, which has the focus
// while Notes is in front (sim.Phone's InputText types there).
const notesApp = "com.corral.notes"

// keyboardUp says, as WebDriverAgent does before it types, whether a keyboard is shown: the
// passcode screen's, or the note field's with no popup over it. Its error is WDA's answer when
// none is: the phone itself takes DEL and ENTER with no field focused as a harmless key press.
func (s *Server) keyboardUp(ctx context.Context) error {
	locked, err := s.phoneLocked(ctx)
	if err != nil || locked {
		return err
	}
	if _, open := s.phone.Popup(); open {
		return errInvalidElementState("no keyboard is shown: a popup is open and has the focus; close it first (close_popups, or tap one of its buttons)")
	}
	app, err := s.phone.ForegroundApp(ctx)
	if err != nil {
		return err
	}
	if app != notesApp {
		return errInvalidElementState("no keyboard is shown: no text field has focus; tap a text field first (open Notes, com.corral.notes: its note field takes the focus)")
	}
	return nil
}
