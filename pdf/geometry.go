package pdf

import "math"

// page is the geometry of one page: the rectangle of user space that a viewer shows (the crop
// box clipped to the media box, in PDF points, y up) and the clockwise rotation it is shown with.
// It converts between user space and Sobre's boxes, which are percentages of the displayed page
// with the origin at its top left and y going down.
type page struct {
	llx, lly, urx, ury float64
	rotate             int // 0, 90, 180 or 270
}

// rect is a rectangle in user space given by two opposite corners, in any order.
type rect struct{ x1, y1, x2, y2 float64 }

func (r rect) normal() rect {
	return rect{min(r.x1, r.x2), min(r.y1, r.y2), max(r.x1, r.x2), max(r.y1, r.y2)}
}

func (r rect) empty() bool {
	return !(r.x2 > r.x1 && r.y2 > r.y1) || !finite(r.x1, r.y1, r.x2, r.y2)
}

// newPage builds a page's geometry the way viewers do: the crop box (when there is one) clipped
// to the media box, or the media box alone when the crop box is missing or does not overlap it.
// rotate is the page's /Rotate in degrees, a multiple of 90 that may be negative or over 360.
func newPage(media rect, crop *rect, rotate int) page {
	box := media.normal()
	if crop != nil {
		c := crop.normal()
		clipped := rect{max(box.x1, c.x1), max(box.y1, c.y1), min(box.x2, c.x2), min(box.y2, c.y2)}
		if !clipped.empty() {
			box = clipped
		}
	}
	return page{llx: box.x1, lly: box.y1, urx: box.x2, ury: box.y2, rotate: normalRotation(rotate)}
}

func (p page) width() float64  { return p.urx - p.llx }
func (p page) height() float64 { return p.ury - p.lly }

// valid reports whether the page has a usable, finite, non-empty size.
func (p page) valid() bool { return !rect{p.llx, p.lly, p.urx, p.ury}.empty() }

// displaySize is the page's width and height as shown, rotation applied.
func (p page) displaySize() (w, h float64) {
	if p.rotate == 90 || p.rotate == 270 {
		return p.height(), p.width()
	}
	return p.width(), p.height()
}

// toDisplay maps a point of user space to the displayed page, in points from its top left.
func (p page) toDisplay(x, y float64) (dx, dy float64) {
	u, v := x-p.llx, y-p.lly // from the bottom left of the visible box, y up
	switch p.rotate {
	case 90: // the left edge of user space becomes the top
		return v, u
	case 180:
		return p.width() - u, v
	case 270:
		return p.height() - v, p.width() - u
	default:
		return u, p.height() - v
	}
}

// toUser is the inverse of toDisplay.
func (p page) toUser(dx, dy float64) (x, y float64) {
	var u, v float64
	switch p.rotate {
	case 90:
		u, v = dy, dx
	case 180:
		u, v = p.width()-dx, dy
	case 270:
		u, v = p.width()-dy, p.height()-dx
	default:
		u, v = dx, p.height()-dy
	}
	return u + p.llx, v + p.lly
}

// percentBox turns a user-space rectangle into a box in percent of the displayed page.
func (p page) percentBox(r rect) (x, y, w, h float64) {
	ax, ay := p.toDisplay(r.x1, r.y1)
	bx, by := p.toDisplay(r.x2, r.y2)
	dw, dh := p.displaySize()
	left, top := min(ax, bx), min(ay, by)
	return 100 * left / dw, 100 * top / dh, 100 * (max(ax, bx) - left) / dw, 100 * (max(ay, by) - top) / dh
}

// userRect turns a box in percent of the displayed page into a normalised user-space rectangle.
func (p page) userRect(x, y, w, h float64) rect {
	dw, dh := p.displaySize()
	ax, ay := p.toUser(x*dw/100, y*dh/100)
	bx, by := p.toUser((x+w)*dw/100, (y+h)*dh/100)
	return rect{ax, ay, bx, by}.normal()
}

// normalRotation reduces a /Rotate value to 0, 90, 180 or 270. A value that is not a multiple
// of 90 is invalid; it is truncated towards zero to one, as PDFium does.
func normalRotation(r int) int {
	q := r / 90 % 4
	if q < 0 {
		q += 4
	}
	return q * 90
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
