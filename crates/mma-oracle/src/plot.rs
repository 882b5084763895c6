//! Hand-written SVG histograms (overlaid, one colour per series), no plotting dependency.

use crate::stats::Histogram;
use std::fmt::Write;

const COLOURS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A short number for axis labels.
fn num(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else if x.abs() >= 1e4 || x.abs() < 1e-2 {
        format!("{x:.1e}")
    } else if (x - x.round()).abs() < 1e-9 {
        format!("{}", x.round())
    } else {
        format!("{x:.2}")
    }
}

/// An SVG document with the histograms of `series` (label, histogram; all on the same bins)
/// drawn as translucent steps, the y axis the share of each series' samples in percent.
pub fn histogram_svg(series: &[(String, Histogram)], title: &str, xlabel: &str) -> String {
    let (w, h) = (760.0, 440.0);
    let (ml, mr, mt, mb) = (70.0, 20.0, 40.0, 60.0);
    let (pw, ph) = (w - ml - mr, h - mt - mb);
    let (lo, hi) = series
        .first()
        .map_or((-1.0, 1.0), |(_, hst)| (hst.lo, hst.hi));
    let share = |hst: &Histogram, c: usize| 100.0 * c as f64 / hst.total().max(1) as f64;
    let ymax = series
        .iter()
        .flat_map(|(_, hst)| hst.counts.iter().map(move |&c| share(hst, c)))
        .fold(0.0f64, f64::max)
        .max(1e-9)
        * 1.05;
    let x = |v: f64| ml + (v - lo) / (hi - lo) * pw;
    let y = |v: f64| mt + ph - v / ymax * ph;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="14">{}</text>"#,
        w / 2.0,
        esc(title)
    );
    // Axes and ticks.
    let _ = writeln!(
        s,
        r#"<path d="M{ml},{mt} V{} H{}" fill="none" stroke="black"/>"#,
        mt + ph,
        ml + pw
    );
    for i in 0..=4 {
        let v = lo + (hi - lo) * i as f64 / 4.0;
        let px = x(v);
        let _ = writeln!(
            s,
            r#"<line x1="{px:.1}" y1="{0}" x2="{px:.1}" y2="{1}" stroke="black"/><text x="{px:.1}" y="{2}" text-anchor="middle">{3}</text>"#,
            mt + ph,
            mt + ph + 5.0,
            mt + ph + 18.0,
            num(v)
        );
        let yv = ymax / 1.05 * i as f64 / 4.0;
        let py = y(yv);
        let _ = writeln!(
            s,
            r##"<line x1="{0}" y1="{py:.1}" x2="{ml}" y2="{py:.1}" stroke="black"/><line x1="{ml}" y1="{py:.1}" x2="{1}" y2="{py:.1}" stroke="#ddd"/><text x="{2}" y="{3:.1}" text-anchor="end">{4}%</text>"##,
            ml - 5.0,
            ml + pw,
            ml - 8.0,
            py + 4.0,
            num(yv)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        ml + pw / 2.0,
        h - 18.0,
        esc(xlabel)
    );
    let _ = writeln!(
        s,
        r#"<text x="16" y="{0}" text-anchor="middle" transform="rotate(-90 16 {0})">share of samples</text>"#,
        mt + ph / 2.0
    );
    // One step outline per series.
    for (i, (label, hst)) in series.iter().enumerate() {
        let col = COLOURS[i % COLOURS.len()];
        let mut d = format!("M{:.1},{:.1}", x(hst.lo), y(0.0));
        for (b, &c) in hst.counts.iter().enumerate() {
            let (x0, x1) = (
                hst.lo + b as f64 * hst.width(),
                hst.lo + (b + 1) as f64 * hst.width(),
            );
            let yy = y(share(hst, c));
            let _ = write!(d, " L{:.1},{yy:.1} L{:.1},{yy:.1}", x(x0), x(x1));
        }
        let _ = write!(d, " L{:.1},{:.1} Z", x(hst.hi), y(0.0));
        let _ = writeln!(
            s,
            r#"<path d="{d}" fill="{col}" fill-opacity="0.25" stroke="{col}" stroke-width="1.5"/>"#
        );
        let ly = mt + 10.0 + 18.0 * i as f64;
        let outside = hst.under + hst.over;
        let label = if outside > 0 {
            format!("{label} ({outside} beyond the axis)")
        } else {
            label.clone()
        };
        let _ = writeln!(
            s,
            r#"<rect x="{0}" y="{1}" width="12" height="12" fill="{col}" fill-opacity="0.5" stroke="{col}"/><text x="{2}" y="{3}" text-anchor="end">{4}</text>"#,
            ml + pw - 14.0,
            ly,
            ml + pw - 20.0,
            ly + 10.0,
            esc(&label)
        );
    }
    s.push_str("</svg>\n");
    s
}
