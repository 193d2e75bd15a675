package dev.baton.sqlserver;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.antlr.v4.runtime.BailErrorStrategy;
import org.antlr.v4.runtime.BaseErrorListener;
import org.antlr.v4.runtime.CharStreams;
import org.antlr.v4.runtime.CommonTokenStream;
import org.antlr.v4.runtime.DefaultErrorStrategy;
import org.antlr.v4.runtime.RecognitionException;
import org.antlr.v4.runtime.Recognizer;
import org.antlr.v4.runtime.atn.PredictionMode;
import org.antlr.v4.runtime.misc.ParseCancellationException;
import org.apache.shardingsphere.sql.parser.autogen.SQLServerStatementLexer;
import org.apache.shardingsphere.sql.parser.autogen.SQLServerStatementParser;

/**
 * A second T-SQL parse, independent of Druid: Apache ShardingSphere's own SQL Server grammar (ANTLR-generated, from
 * Maven Central), which is not a full T-SQL grammar. What it is given, and why:
 *
 * <ul>
 *   <li>JDBC markers {@code ?} as {@code @P1, @P2, …}, as mssql-jdbc sends them;
 *   <li>table-hint lists with their commas as spaces: T-SQL takes both ({@code WITH ( <table_hint> [ [ , ] …n ] )}),
 *       the grammar only spaces;
 *   <li>a batch split at its top-level semicolons, each statement parsed alone;
 *   <li>no hint list on a table that a JOIN follows ({@link #hintsBeforeJoin}): the grammar takes hints on a lone
 *       table only; the same lists are read where a table stands alone;
 *   <li>no {@code OPTION (MAXRECURSION 0)} at the end: the grammar's OPTION knows other query hints only.
 * </ul>
 *
 * A statement passes when lexer and parser report no error and the parse reaches the end. Statements of the kinds the
 * grammar has no rule for ({@link #outsideGrammar}) are not parsed; callers count and name them. {@link TsqlStrict}'s
 * rules are applied to every statement, parsed or not.
 */
final class TsqlIndependentParser {
    private static final Pattern HINTS = Pattern.compile("WITH \\(((?:[A-Z]+, )+[A-Z]+)\\)");
    private static final Pattern MARKER = Pattern.compile("\\?");
    private static final Pattern HINTS_BEFORE_JOIN = Pattern.compile(" WITH \\((?:[A-Z]+, )*[A-Z]+\\)(?= JOIN )");

    private TsqlIndependentParser() {}

    /**
     * The construct of {@code statement} the grammar cannot read, or null when it can: variables and procedure calls
     * (DECLARE, EXEC, IF … THROW), session options (SET SHOWPLAN_XML), a VALUES row as a derived table, COLLATE on a
     * column in a predicate, a filtered index ({@code CREATE … INDEX … WHERE}), table hints on a DELETE target, and an
     * index's INCLUDE list. Each of these is pinned by exact text and read by Druid where Druid knows it.
     */
    static String outsideGrammar(String statement) {
        String s = statement.trim();
        if (s.startsWith("DECLARE ") || s.startsWith("EXEC ") || s.startsWith("IF ")) {
            return "variables and procedure calls";
        }
        if (s.startsWith("SET SHOWPLAN_XML")) {
            return "SET SHOWPLAN_XML";
        }
        if (s.contains("FROM (VALUES (")) {
            return "a VALUES row as a derived table";
        }
        if (s.contains(" COLLATE Latin1_General_100_BIN2 = ")) {
            return "COLLATE in a predicate";
        }
        if (s.matches("(?s)CREATE (UNIQUE )?INDEX .* WHERE .*")) {
            return "a filtered index";
        }
        if (s.matches("(?s)DELETE TOP \\(\\d+\\) FROM \\S+ WITH \\(.*")) {
            return "table hints on a DELETE target";
        }
        if (s.matches("(?s)CREATE .*INDEX .* INCLUDE \\(.*")) {
            return "an index's INCLUDE list";
        }
        return null;
    }

    /** The batch's statements, split at semicolons outside literals, names and parentheses. */
    static List<String> statements(String batch) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < batch.length(); i++) {
            char c = batch.charAt(i);
            if (c == '\'' || c == '[') {
                char close = c == '[' ? ']' : '\'';
                i++;
                while (i < batch.length()
                        && !(batch.charAt(i) == close && (i + 1 >= batch.length() || batch.charAt(i + 1) != close))) {
                    i += batch.charAt(i) == close ? 2 : 1;
                }
            } else if (c == '-' && batch.startsWith("--", i)) {
                int end = batch.indexOf('\n', i);
                i = end < 0 ? batch.length() : end;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ';' && depth == 0) {
                add(out, batch.substring(start, i));
                start = i + 1;
            }
        }
        add(out, batch.substring(start));
        return out;
    }

    private static void add(List<String> out, String statement) {
        String s = statement.replaceAll("(?m)^\\s*--.*$", "").trim();
        if (!s.isEmpty()) {
            out.add(s);
        }
    }

    /** True when the statement has a hint list on a table that a JOIN follows, which {@link #errors} leaves out. */
    static boolean hintsBeforeJoin(String statement) {
        return HINTS_BEFORE_JOIN.matcher(statement).find();
    }

    /** The parser's errors for one statement, empty when it parses. */
    static List<String> errors(String statement) {
        String text = commasOutOfHints(markers(
                HINTS_BEFORE_JOIN.matcher(statement).replaceAll("").replaceFirst(" OPTION \\(MAXRECURSION 0\\)$", "")));
        List<String> errors = new ArrayList<>();
        BaseErrorListener listener = new BaseErrorListener() {
            @Override
            public void syntaxError(
                    Recognizer<?, ?> recognizer,
                    Object symbol,
                    int line,
                    int column,
                    String message,
                    RecognitionException e) {
                errors.add(line + ":" + column + " " + message);
            }
        };
        SQLServerStatementLexer lexer = new SQLServerStatementLexer(CharStreams.fromString(text));
        lexer.removeErrorListeners();
        lexer.addErrorListener(listener);
        CommonTokenStream tokens = new CommonTokenStream(lexer);
        SQLServerStatementParser parser = new SQLServerStatementParser(tokens);
        // SLL first, as ShardingSphere parses: much faster; LL, with errors reported, only where SLL fails
        parser.getInterpreter().setPredictionMode(PredictionMode.SLL);
        parser.removeErrorListeners();
        parser.setErrorHandler(new BailErrorStrategy());
        try {
            parser.execute();
            return errors;
        } catch (ParseCancellationException sllFailed) {
            tokens.seek(0);
            parser.reset();
            parser.setErrorHandler(new DefaultErrorStrategy());
            parser.getInterpreter().setPredictionMode(PredictionMode.LL);
            parser.addErrorListener(listener);
            parser.execute();
            return errors;
        }
    }

    private static String markers(String s) {
        Matcher m = MARKER.matcher(s);
        StringBuilder out = new StringBuilder();
        int n = 0;
        while (m.find()) {
            m.appendReplacement(out, "@P" + (++n));
        }
        return m.appendTail(out).toString();
    }

    private static String commasOutOfHints(String s) {
        Matcher m = HINTS.matcher(s);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(
                    out, Matcher.quoteReplacement("WITH (" + m.group(1).replace(",", "") + ")"));
        }
        return m.appendTail(out).toString();
    }
}
