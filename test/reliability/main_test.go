package reliability

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	admitCommand.remove()
	os.Exit(code)
}
