package dev.baton.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What the page makes of a text from the database: escaped, invisible characters shown, values readable. */
class HtmlTest {
    @Test
    void bidiOverridesAndInvisibleCharactersAreShownAsCodes() {
        String shown = Html.text("refund \u202Edeifirev\u202C ok\u200B\u0007\uFEFF");
        assertFalse(shown.chars().anyMatch(c -> c == 0x202E || c == 0x202C || c == 0x200B || c == 7 || c == 0xFEFF));
        assertTrue(shown.contains(">\\u202E</span>deifirev<span"), shown);
        assertTrue(shown.contains(">\\u0007</span>"), shown);
        assertEquals("a\nb\tc", Html.text("a\r\nb\tc"), "line breaks and tabs are text");
        assertTrue(Html.text("a\rb").contains(">\\u000D</span>"), "a lone CR is shown");
        assertEquals("&lt;b&gt; &amp;&quot;&#39;", Html.text("<b> &\"'"));
    }

    @Test
    void attributesKeepTheCharactersAsReferences() {
        assertEquals("s&lt;a&#x202e;&#xa;&quot;", Html.attr("s<a\u202E\n\""));
        assertEquals("q\\u202Ex", Html.plain("q\u202Ex"));
    }

    @Test
    void bytesAreShownAsTextWhenTheyAreUtf8AndJsonIndented() {
        assertEquals(
                "{\n  \"a\": [\n    1,\n    true,\n    null\n  ],\n  \"b\": {}\n}",
                Values.show("{\"a\":[1, true,null],\"b\":{}}".getBytes(StandardCharsets.UTF_8)));
        assertEquals("caf\u00e9 au lait", Values.show("caf\u00e9 au lait".getBytes(StandardCharsets.UTF_8)));
        assertEquals("binary, 3 bytes: ff 00 01", Values.show(new byte[] {(byte) 0xff, 0, 1}));
        assertEquals("binary, 2 bytes: 00 00", Values.show(new byte[] {0, 0}));
        assertEquals("NULL", Values.show(null));
        assertEquals("{not json", Values.show("{not json"));
        assertNull(Json.pretty("[1,]"));
        assertNull(Json.pretty("{\"a\":1} x"));
        assertNull(Json.pretty("[".repeat(100) + "]".repeat(100)), "deeper than the bound");
    }
}
