package checks

import (
	"testing"
	"time"

	"example.com/loginlink/app"
)

func TestVerifyOnce(t *testing.T) {
	now := time.Now()
	l := &app.Link{Token: "s3cret", IssuedAt: now}
	if err := app.Verify(l, "s3cret", now); err != nil {
		t.Fatalf("first use: %v", err)
	}
	if err := app.Verify(l, "s3cret", now); err == nil {
		t.Fatal("second use was accepted")
	}
}

func TestLinkExpires(t *testing.T) {
	issued := time.Now()
	l := &app.Link{Token: "s3cret", IssuedAt: issued}
	app.Verify(l, "s3cret", issued.Add(16*time.Minute))
}
