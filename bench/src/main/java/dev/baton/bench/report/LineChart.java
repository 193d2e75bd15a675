package dev.baton.bench.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import javax.imageio.ImageIO;

/**
 * A small line chart drawn with Java2D: x values are categories placed at equal distances (1, 4, 16 or 10k, 100k,
 * 1M read naturally that way), y is linear from 0, each point may carry a min..max whisker. Not thread-safe.
 */
public final class LineChart {
    private static final Color[] PALETTE = {
        new Color(0x1f77b4),
        new Color(0xd62728),
        new Color(0x2ca02c),
        new Color(0xff7f0e),
        new Color(0x9467bd),
        new Color(0x8c564b)
    };

    /**
     * A point with its whisker.
     *
     * @param x category value
     * @param y the value drawn
     * @param lo lower end of the whisker (NaN for none)
     * @param hi upper end of the whisker (NaN for none)
     */
    public record P(double x, double y, double lo, double hi) {}

    /**
     * A named line.
     *
     * @param name legend text
     * @param colour palette index
     * @param dashed dashed line
     * @param points its points
     */
    public record Series(String name, int colour, boolean dashed, List<P> points) {}

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final List<Series> series = new ArrayList<>();
    private final List<double[]> rules = new ArrayList<>();
    private final List<String> ruleLabels = new ArrayList<>();
    private boolean yFromZero = true;

    /** A chart with these titles. */
    public LineChart(String title, String xLabel, String yLabel) {
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
    }

    /** Adds a line. */
    public LineChart add(Series s) {
        series.add(s);
        return this;
    }

    /** Adds a horizontal reference line. */
    public LineChart rule(double y, String label) {
        rules.add(new double[] {y});
        ruleLabels.add(label);
        return this;
    }

    /** Lets the y axis start near the smallest value instead of 0 (for ratios around 1). */
    public LineChart yFromData() {
        yFromZero = false;
        return this;
    }

    /** Draws the chart into a PNG. */
    public void write(Path file, int width, int height) throws IOException {
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        Font base = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
        g.setFont(base.deriveFont(Font.BOLD, 14f));
        g.setColor(Color.BLACK);
        g.drawString(title, 12, 22);
        g.setFont(base);
        FontMetrics fm = g.getFontMetrics();

        TreeSet<Double> xs = new TreeSet<>();
        double yMin = Double.POSITIVE_INFINITY;
        double yMax = Double.NEGATIVE_INFINITY;
        for (Series s : series) {
            for (P p : s.points()) {
                xs.add(p.x());
                for (double v : new double[] {p.y(), p.lo(), p.hi()}) {
                    if (!Double.isNaN(v)) {
                        yMin = Math.min(yMin, v);
                        yMax = Math.max(yMax, v);
                    }
                }
            }
        }
        for (double[] r : rules) {
            yMin = Math.min(yMin, r[0]);
            yMax = Math.max(yMax, r[0]);
        }
        if (xs.isEmpty()) {
            g.drawString("no data", width / 2 - 20, height / 2);
            g.dispose();
            ImageIO.write(img, "png", file.toFile());
            return;
        }
        double lo = yFromZero ? 0 : yMin - (yMax - yMin) * 0.1;
        double hi = yMax + (yMax - lo) * 0.08;
        if (hi <= lo) {
            hi = lo + 1;
        }
        double step = niceStep((hi - lo) / 6);
        lo = Math.floor(lo / step) * step;
        hi = Math.ceil(hi / step) * step;

        int left = 70;
        int right = width - 20;
        int top = 40;
        int bottom = height - 60 - 16 * ((series.size() + 1) / 2);
        g.setColor(new Color(0xe0e0e0));
        for (double y = lo; y <= hi + step / 2; y += step) {
            int py = py(y, lo, hi, top, bottom);
            g.drawLine(left, py, right, py);
        }
        g.setColor(Color.DARK_GRAY);
        g.drawLine(left, top, left, bottom);
        g.drawLine(left, bottom, right, bottom);
        for (double y = lo; y <= hi + step / 2; y += step) {
            String label = fmt(y, step);
            int py = py(y, lo, hi, top, bottom);
            g.drawString(label, left - 6 - fm.stringWidth(label), py + fm.getAscent() / 2 - 1);
        }
        List<Double> xList = new ArrayList<>(xs);
        int n = xList.size();
        for (int i = 0; i < n; i++) {
            int px = px(i, n, left, right);
            String label = fmtX(xList.get(i));
            g.drawLine(px, bottom, px, bottom + 4);
            g.drawString(label, px - fm.stringWidth(label) / 2, bottom + 4 + fm.getAscent());
        }
        g.drawString(xLabel, (left + right) / 2 - fm.stringWidth(xLabel) / 2, bottom + 8 + 2 * fm.getAscent());
        Graphics2D gy = (Graphics2D) g.create();
        gy.rotate(-Math.PI / 2);
        gy.drawString(yLabel, -(top + bottom) / 2 - fm.stringWidth(yLabel) / 2, 14);
        gy.dispose();

        Stroke dashedStroke =
                new BasicStroke(1.2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {5f, 4f}, 0f);
        for (int r = 0; r < rules.size(); r++) {
            int py = py(rules.get(r)[0], lo, hi, top, bottom);
            g.setColor(Color.GRAY);
            g.setStroke(dashedStroke);
            g.drawLine(left, py, right, py);
            g.setStroke(new BasicStroke(1f));
            // alternate above and below the line, so labels of close rules (1.0, 0.95) do not overlap
            int ty = r % 2 == 0 ? py - 3 : py + fm.getAscent() + 1;
            g.drawString(ruleLabels.get(r), right - fm.stringWidth(ruleLabels.get(r)) - 2, ty);
        }
        for (int si = 0; si < series.size(); si++) {
            Series s = series.get(si);
            // a few pixels apart per series, so that whiskers at the same x stay readable
            int dx = (int) Math.round((si - (series.size() - 1) / 2.0) * 5);
            Color c = PALETTE[s.colour() % PALETTE.length];
            g.setColor(c);
            g.setStroke(
                    s.dashed()
                            ? new BasicStroke(
                                    2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f, new float[] {7f, 5f}, 0f)
                            : new BasicStroke(2f));
            int prevX = -1;
            int prevY = -1;
            for (P p : s.points()) {
                int px = px(xList.indexOf(p.x()), n, left, right) + dx;
                int py = py(p.y(), lo, hi, top, bottom);
                if (prevX >= 0) {
                    g.drawLine(prevX, prevY, px, py);
                }
                prevX = px;
                prevY = py;
            }
            g.setStroke(new BasicStroke(1.2f));
            for (P p : s.points()) {
                int px = px(xList.indexOf(p.x()), n, left, right) + dx;
                int py = py(p.y(), lo, hi, top, bottom);
                g.fillOval(px - 4, py - 4, 8, 8);
                if (!Double.isNaN(p.lo()) && !Double.isNaN(p.hi())) {
                    int a = py(p.lo(), lo, hi, top, bottom);
                    int b = py(p.hi(), lo, hi, top, bottom);
                    g.drawLine(px, a, px, b);
                    g.drawLine(px - 4, a, px + 4, a);
                    g.drawLine(px - 4, b, px + 4, b);
                }
            }
        }
        int ly = bottom + 14 + 3 * fm.getAscent();
        for (int i = 0; i < series.size(); i++) {
            Series s = series.get(i);
            int lx = left + (i % 2) * ((right - left) / 2);
            int yy = ly + (i / 2) * 16;
            g.setColor(PALETTE[s.colour() % PALETTE.length]);
            g.setStroke(s.dashed() ? dashedStroke : new BasicStroke(2f));
            g.drawLine(lx, yy - 4, lx + 24, yy - 4);
            g.setColor(Color.BLACK);
            g.drawString(s.name(), lx + 30, yy);
        }
        g.dispose();
        ImageIO.write(img, "png", file.toFile());
    }

    private static int px(int index, int n, int left, int right) {
        return n == 1
                ? (left + right) / 2
                : left + 40 + (int) Math.round((right - left - 80) * index / (double) (n - 1));
    }

    private static int py(double y, double lo, double hi, int top, int bottom) {
        return bottom - (int) Math.round((bottom - top) * (y - lo) / (hi - lo));
    }

    private static double niceStep(double raw) {
        double mag = Math.pow(10, Math.floor(Math.log10(raw)));
        double f = raw / mag;
        return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * mag;
    }

    /** Category labels: 1, 16, 10k, 1M. */
    private static String fmtX(double v) {
        if (Math.abs(v) >= 1_000_000 && v % 1_000_000 == 0) {
            return String.format(Locale.ROOT, "%.0fM", v / 1_000_000);
        }
        if (Math.abs(v) >= 10_000 && v % 1000 == 0) {
            return String.format(Locale.ROOT, "%.0fk", v / 1000);
        }
        return String.format(Locale.ROOT, "%,.0f", v);
    }

    /** Axis values with as many decimals as the step needs. */
    private static String fmt(double v, double step) {
        if (step < 1) {
            int d = (int) Math.max(1, Math.ceil(-Math.log10(step) - 1e-9));
            double scaled = step * Math.pow(10, d);
            if (Math.abs(scaled - Math.rint(scaled)) > 1e-6) {
                d++;
            }
            return String.format(Locale.ROOT, "%." + d + "f", v);
        }
        return String.format(Locale.ROOT, "%,.0f", v);
    }
}
