package envelope

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	stdpng "image/png"
	"strings"
)

// MaxSignatureImage is the largest signature image accepted, decoded.
const MaxSignatureImage = 512 << 10

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// decodePNGDataURL reads a "data:image/png;base64," URL. ok is false when s is not one at all.
func decodePNGDataURL(s string) (png []byte, ok bool, err error) {
	const prefix = "data:image/png;base64,"
	if !strings.HasPrefix(s, prefix) {
		return nil, false, nil
	}
	data := s[len(prefix):]
	if base64.StdEncoding.DecodedLen(len(data)) > MaxSignatureImage {
		return nil, true, errors.New("the signature image is larger than 512 KiB")
	}
	png, err = base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, true, errors.New("the signature image is not valid base64")
	}
	if !bytes.HasPrefix(png, pngMagic) {
		return nil, true, errors.New("the signature image is not a PNG")
	}
	// The whole image must decode (the seal draws it later); its size is checked first, so a
	// small file cannot claim a huge image.
	cfg, err := stdpng.DecodeConfig(bytes.NewReader(png))
	if err != nil {
		return nil, true, errors.New("the signature image is not a readable PNG")
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > MaxSignaturePixels || cfg.Height > MaxSignaturePixels {
		return nil, true, fmt.Errorf("the signature image must be at most %d×%d pixels", MaxSignaturePixels, MaxSignaturePixels)
	}
	if _, err := stdpng.Decode(bytes.NewReader(png)); err != nil {
		return nil, true, errors.New("the signature image is not a readable PNG")
	}
	return png, true, nil
}

// MaxSignaturePixels is the largest width or height of a signature image.
const MaxSignaturePixels = 2000
