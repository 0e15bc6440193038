package checks

import (
	"testing"

	"example.com/loginlink/app"
)

func TestVerifyOnce(t *testing.T) {
	l := &app.Link{Token: "s3cret"}
	if err := app.Verify(l, "s3cret"); err != nil {
		t.Fatalf("first use: %v", err)
	}
	if err := app.Verify(l, "s3cret"); err == nil {
		t.Fatal("second use was accepted")
	}
}
