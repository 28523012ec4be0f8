package demo

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
)

// The demo's binary content, made at start-up rather than carried as opaque
// base64: a 1x1 PNG and a short WAV of silence.
var (
	pixelPNG   = makePNG()
	silenceWAV = makeWAV(8000, 80) // 10 ms of 8 kHz mono
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

// makeWAV returns a RIFF/WAVE file of n silent 16-bit mono samples at rate
// samples per second: a 44-byte header and the data.
func makeWAV(rate, n int) []byte {
	const channels, bits = 1, 16
	data := n * channels * bits / 8
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	le(uint32(36 + data))
	b.WriteString("WAVEfmt ")
	le(uint32(16))                         // fmt chunk size
	le(uint16(1))                          // PCM
	le(uint16(channels))                   //
	le(uint32(rate))                       // sample rate
	le(uint32(rate * channels * bits / 8)) // byte rate
	le(uint16(channels * bits / 8))        // block align
	le(uint16(bits))                       //
	b.WriteString("data")
	le(uint32(data))
	b.Write(make([]byte, data))
	return b.Bytes()
}
