// Every visible text element whose contrast with what is behind it falls below WCAG AA (4.5:1,
// or 3:1 for large text): returns [{text, ratio, size, color, testid}]. Charts (SVG), hidden
// MathML, disabled controls and the slider thumb value (drawn beside the thumb, not on it) are left out.
() => {
  function parse(c) {
    const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return null;
    const p = m[1].split(',').map(s => parseFloat(s)); return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
  }
  function lum(c) {
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  }
  function blend(top, bottom) {
    const a = top.a; return {r: top.r * a + bottom.r * (1 - a), g: top.g * a + bottom.g * (1 - a), b: top.b * a + bottom.b * (1 - a), a: 1};
  }
  function background(el) {
    // A gradient painted over an element (qkv's scroll-edge covers) is judged by its first colour, the
    // one under the text's start: such a cover once hid a red button's white label in white.
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const style = getComputedStyle(e);
      const cover = style.backgroundImage.includes('gradient') ? parse(style.backgroundImage) : null;
      if (cover && cover.a >= 1) { layers.push(cover); break; }
      const bg = parse(style.backgroundColor);
      if (bg && bg.a > 0) { layers.push(bg); if (bg.a >= 1) break; }
    }
    let c = {r: 255, g: 255, b: 255, a: 1};
    for (let i = layers.length - 1; i >= 0; i--) c = blend(layers[i], c);
    return c;
  }
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  while (walker.nextNode()) {
    const node = walker.currentNode; const text = node.textContent.trim();
    if (!text) continue;
    const el = node.parentElement; if (!el || seen.has(el)) continue; seen.add(el);
    if (el.closest('svg, .js-plotly-plot, [aria-hidden=true], script, style, noscript, .katex-mathml')) continue;
    const rect = el.getBoundingClientRect(); if (rect.width === 0 || rect.height === 0) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden' || cs.display === 'none' || parseFloat(cs.opacity) === 0) continue;
    if (el.closest('[disabled], [aria-disabled=true], [data-testid=stSliderThumbValue]')) continue;
    let fg = parse(cs.color); if (!fg) continue;
    let opacity = 1; for (let e = el; e; e = e.parentElement) opacity *= parseFloat(getComputedStyle(e).opacity);
    if (opacity < 0.05) continue;
    const bg = background(el);
    fg = blend({...fg, a: fg.a * opacity}, bg);
    const l1 = lum(fg), l2 = lum(bg);
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    const size = parseFloat(cs.fontSize), bold = parseInt(cs.fontWeight) >= 700;
    const large = size >= 24 || (bold && size >= 18.66);
    if (ratio < (large ? 3 : 4.5)) out.push({text: text.slice(0, 40), ratio: Math.round(ratio * 100) / 100, size, color: cs.color, testid: (el.closest('[data-testid]') || {}).dataset?.testid});
  }
  return out;
}
