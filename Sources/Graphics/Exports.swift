// Points, rects, pixel rects and damage regions are part of Graphics' API (surfaces,
// canvases and clips speak them); they live in ScreenGeometry so that Input can share
// them without linking the renderer.
@_exported import ScreenGeometry
