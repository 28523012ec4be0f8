package main

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
)

// The demo's binary content, made at start-up rather than carried as opaque
// base64.
var (
	pixelPNG = makePNG()
)

// makePNG encodes one opaque pixel in the project's blue.
func makePNG() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.NRGBA{R: 0x1f, G: 0x6f, B: 0xeb, A: 0xff})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err) // encoding to memory cannot fail
	}
	return b.Bytes()
}
