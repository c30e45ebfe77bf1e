package pdf

// page is a page's media box and rotation: what converting between PDF user space (origin at the
// bottom left of the media box, y up) and Sobre's boxes (percent of the displayed page, origin
// at the top left, y down) needs.
type page struct {
	llx, lly, urx, ury float64
	rotate             int // 0, 90, 180 or 270, clockwise
}

func (p page) width() float64  { return p.urx - p.llx }
func (p page) height() float64 { return p.ury - p.lly }

// displaySize is the page's size as shown, rotation applied.
func (p page) displaySize() (w, h float64) {
	if p.rotate == 90 || p.rotate == 270 {
		return p.height(), p.width()
	}
	return p.width(), p.height()
}

// toDisplay maps a point of user space to displayed points from the top left.
func (p page) toDisplay(x, y float64) (dx, dy float64) {
	u, v := x-p.llx, y-p.lly
	switch p.rotate {
	case 90:
		return v, u
	case 180:
		return p.width() - u, v
	case 270:
		return p.height() - v, p.width() - u
	default:
		return u, p.height() - v
	}
}

// toUser maps displayed points from the top left back to user space.
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

// boxToPercent turns a user-space rectangle into a Match box on the displayed page.
func (p page) boxToPercent(left, bottom, right, top float64) (x, y, w, h float64) {
	x1, y1 := p.toDisplay(left, bottom)
	x2, y2 := p.toDisplay(right, top)
	dw, dh := p.displaySize()
	minX, maxX := min(x1, x2), max(x1, x2)
	minY, maxY := min(y1, y2), max(y1, y2)
	return 100 * minX / dw, 100 * minY / dh, 100 * (maxX - minX) / dw, 100 * (maxY - minY) / dh
}

// percentToBox turns a Match box back into a user-space rectangle (left, bottom, right, top).
func (p page) percentToBox(m Match) (left, bottom, right, top float64) {
	dw, dh := p.displaySize()
	x1, y1 := p.toUser(m.X*dw/100, m.Y*dh/100)
	x2, y2 := p.toUser((m.X+m.Width)*dw/100, (m.Y+m.Height)*dh/100)
	return min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)
}

func normalRotation(r int) int {
	r %= 360
	if r < 0 {
		r += 360
	}
	return r - r%90
}
