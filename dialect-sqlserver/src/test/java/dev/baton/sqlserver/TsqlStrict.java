package dev.baton.sqlserver;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * T-SQL rules that neither Druid nor the independent parser ({@link SqlServerIndependentParseTest}) enforce, checked
 * on the tokens of a batch (string literals, bracketed names and comments skipped). ORDER BY may only follow the last
 * query of a UNION, EXCEPT or INTERSECT at the same level of parentheses (learn.microsoft.com, Set Operators - UNION,
 * example C: SQL Server answers error 156 near UNION), TOP or not; an ORDER BY inside parentheses (a derived table, a
 * subquery, OVER (…)) is a level of its own. A hint list with READPAST names READCOMMITTEDLOCK too: under
 * READ_COMMITTED_SNAPSHOT at READ COMMITTED READPAST alone is refused (learn.microsoft.com, table hints, error 650).
 */
final class TsqlStrict {
    /** A table-hint list: {@code WITH (…)} without nested parentheses. */
    private static final Pattern HINTS = Pattern.compile("WITH\\s*\\(([^()]*)\\)", Pattern.CASE_INSENSITIVE);

    private TsqlStrict() {}

    /** What the batch breaks, empty when nothing. */
    static List<String> problems(String tsql) {
        List<String> problems = new ArrayList<>();
        List<Boolean> orderedAtLevel = new ArrayList<>(List.of(false));
        Matcher hints = HINTS.matcher(tsql);
        while (hints.find()) {
            String list = hints.group(1).toUpperCase(Locale.ROOT);
            if (list.matches(".*\\bREADPAST\\b.*") && !list.matches(".*\\bREADCOMMITTEDLOCK\\b.*")) {
                problems.add("READPAST without READCOMMITTEDLOCK (error 650 under READ_COMMITTED_SNAPSHOT): " + list);
            }
        }
        List<String> words = words(tsql);
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            int level = orderedAtLevel.size() - 1;
            switch (w) {
                case "(" -> orderedAtLevel.add(false);
                case ")" -> {
                    if (level > 0) {
                        orderedAtLevel.remove(level);
                    }
                }
                case ";" -> orderedAtLevel.set(level, false);
                case "ORDER" -> {
                    if (i + 1 < words.size() && words.get(i + 1).equals("BY")) {
                        orderedAtLevel.set(level, true);
                    }
                }
                case "UNION", "EXCEPT", "INTERSECT" -> {
                    if (orderedAtLevel.get(level)) {
                        problems.add("ORDER BY before " + w + " (error 156): ORDER BY may only follow the last query");
                    }
                }
                default -> {}
            }
        }
        return problems;
    }

    /** Upper-case words and the punctuation {@code ( ) ;}, without literals, bracketed names and comments. */
    private static List<String> words(String s) {
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '\'') {
                i = skipQuoted(s, i, '\'');
            } else if (c == '[') {
                i = skipQuoted(s, i, ']');
            } else if (c == '-' && s.startsWith("--", i)) {
                int end = s.indexOf('\n', i);
                i = end < 0 ? s.length() : end;
            } else if (c == '/' && s.startsWith("/*", i)) {
                int end = s.indexOf("*/", i + 2);
                i = end < 0 ? s.length() : end + 2;
            } else if (c == '(' || c == ')' || c == ';') {
                out.add(String.valueOf(c));
                i++;
            } else if (Character.isLetter(c) || c == '_' || c == '@' || c == '#') {
                int start = i;
                while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || "_@#$".indexOf(s.charAt(i)) >= 0)) {
                    i++;
                }
                out.add(s.substring(start, i).toUpperCase(Locale.ROOT));
            } else {
                i++;
            }
        }
        return out;
    }

    /** The index after a literal or name that opens at {@code start} and closes with {@code close} (doubled: escaped). */
    private static int skipQuoted(String s, int start, char close) {
        int i = start + 1;
        while (i < s.length()) {
            if (s.charAt(i) == close) {
                if (i + 1 < s.length() && s.charAt(i + 1) == close) {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        return i;
    }
}
