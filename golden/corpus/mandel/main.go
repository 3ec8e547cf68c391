// Command mandel draws the Mandelbrot set into an image.Gray through its
// methods, the image's pixels shared between ranks through a name of
// their own (pix := img.Pix), and counts the points inside.
package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/cmplx"
)

func mandel(c complex128) uint8 {
	z := complex(0, 0)
	for i := 0; i < 255; i++ {
		z = z*z + c
		if cmplx.Abs(z) > 2 {
			return uint8(i)
		}
	}
	return 255
}

func main() {
	const w, h = 160, 120
	img := image.NewGray(image.Rect(0, 0, w, h))
	pix := img.Pix
	//svm:shared pix
	_ = pix
	//svm:pdo strategy(dynamic(4))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := complex(-2+3*float64(x)/w, -1.2+2.4*float64(y)/h)
			//svm:ignore race: SetGray writes img.Pix, shared as pix
			img.SetGray(x, y, color.Gray{Y: mandel(c)})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err)
	}
	fmt.Printf("%x\n", sha256.Sum256(img.Pix))
	inside := 0
	//svm:pdo reduction(+: inside)
	for _, p := range img.Pix {
		if p == 255 {
			inside++
		}
	}
	fmt.Println(inside)
}
