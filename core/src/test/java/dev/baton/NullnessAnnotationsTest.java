package dev.baton;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.AnnotatedArrayType;
import java.lang.reflect.AnnotatedParameterizedType;
import java.lang.reflect.AnnotatedType;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.NullMarked;
import org.jspecify.annotations.NullUnmarked;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The public API's nullness is stated by JSpecify, read here from the compiled classes: both exported packages are
 * {@code @NullMarked} (so every parameter, return value and record component is non-null unless annotated), nothing opts
 * out, and the places that accept or return null are exactly the listed ones (an annotation added or dropped fails
 * here, so the list is reviewed with the change). Also: the annotations are a compile-time dependency only, so core
 * still needs only the JDK and slf4j-api at run time.
 */
class NullnessAnnotationsTest {
    /**
     * Every {@code @Nullable} of the public API: type, member, position. (javac does not carry an annotation inside a
     * record component's type argument, {@code Map<String, @Nullable Object>}, to the canonical constructor's
     * parameter; the accessors have it.)
     */
    private static final List<String> NULLABLE = List.of(
            "dev.baton.AdminAction#<init>(Kind,String,Object,String,Object,long,Instant) param 2",
            "dev.baton.AdminAction#<init>(Kind,String,Object,String,Object,long,Instant) param 3",
            "dev.baton.AdminAction#<init>(Kind,String,Object,String,Object,long,Instant) param 6",
            "dev.baton.AdminAction#at() returns",
            "dev.baton.AdminAction#id() returns",
            "dev.baton.AdminAction#principal() returns",
            "dev.baton.BatonListener#onDelivered(String,OutboxMessage,Instant) param 2",
            "dev.baton.BatonListener#onHandled(String,Object,int,Outcome,Throwable,Duration) param 3",
            "dev.baton.BatonListener#onHandled(String,Object,int,Outcome,Throwable,Duration) param 4",
            "dev.baton.BeginResult$Completed#equals(Object) param 0",
            "dev.baton.BlockedKey#<init>(String,Object,Enum,int,String) param 4",
            "dev.baton.BlockedKey#lastError() returns",
            "dev.baton.BulkTransition#set(String,Object) param 1",
            "dev.baton.ClaimQueue#sendingState() returns",
            "dev.baton.ClaimQueue#unknownState() returns",
            "dev.baton.ClaimedRow#equals(Object) param 0",
            "dev.baton.ClaimedRow#get(String) returns",
            "dev.baton.ClaimedRow#get(String,Class) returns",
            "dev.baton.ClaimedRow#values() returns type argument",
            "dev.baton.CommitNotDurableException#<init>(String,String,Object) param 2",
            "dev.baton.CommitNotDurableException#result() returns",
            "dev.baton.DataAccessException#sqlState() returns",
            "dev.baton.DeadLetterQuery#<init>(String,Object,Object,Object,String,Instant,Instant,boolean) param 0",
            "dev.baton.DeadLetterQuery#<init>(String,Object,Object,Object,String,Instant,Instant,boolean) param 1",
            "dev.baton.DeadLetterQuery#<init>(String,Object,Object,Object,String,Instant,Instant,boolean) param 2",
            "dev.baton.DeadLetterQuery#<init>(String,Object,Object,Object,String,Instant,Instant,boolean) param 3",
            "dev.baton.DeadLetterQuery#<init>(String,Object,Object,Object,String,Instant,Instant,boolean) param 4",
            "dev.baton.DeadLetterQuery#<init>(String,Object,Object,Object,String,Instant,Instant,boolean) param 5",
            "dev.baton.DeadLetterQuery#<init>(String,Object,Object,Object,String,Instant,Instant,boolean) param 6",
            "dev.baton.DeadLetterQuery#changedBetween(String,Instant,Instant) param 1",
            "dev.baton.DeadLetterQuery#changedBetween(String,Instant,Instant) param 2",
            "dev.baton.DeadLetterQuery#errorContains() returns",
            "dev.baton.DeadLetterQuery#errorContains(String) param 0",
            "dev.baton.DeadLetterQuery#from() returns",
            "dev.baton.DeadLetterQuery#idBetween(Object,Object) param 0",
            "dev.baton.DeadLetterQuery#idBetween(Object,Object) param 1",
            "dev.baton.DeadLetterQuery#idFrom() returns",
            "dev.baton.DeadLetterQuery#idTo() returns",
            "dev.baton.DeadLetterQuery#key() returns",
            "dev.baton.DeadLetterQuery#key(Object) param 0",
            "dev.baton.DeadLetterQuery#timeColumn() returns",
            "dev.baton.DeadLetterQuery#to() returns",
            "dev.baton.DeadLetters#find(DeadLetterQuery,Object,int) param 1",
            "dev.baton.DeadLetters#principal() returns",
            "dev.baton.DeadLetters#row(Object) returns type argument type argument",
            "dev.baton.DeadLetters#search(String,boolean,Object,int) param 0",
            "dev.baton.DeadLetters#search(String,boolean,Object,int) param 2",
            "dev.baton.DeadMessage#<init>(OutboxMessage,String) param 1",
            "dev.baton.DeadMessage#lastError() returns",
            "dev.baton.DeadRow#<init>(Object,int,String,Map) param 2",
            "dev.baton.DeadRow#get(String,Class) returns",
            "dev.baton.DeadRow#lastError() returns",
            "dev.baton.DeadRow#values() returns type argument",
            "dev.baton.DeadRowPage#<init>(List,Object,int) param 1",
            "dev.baton.DeadRowPage#continueAfter() returns",
            "dev.baton.GroupWeights#equals(Object) param 0",
            "dev.baton.InvalidIdentifierException#<init>(String,String) param 0",
            "dev.baton.InvalidIdentifierException#identifier() returns",
            "dev.baton.Message#<init>(String,byte[],String,String,Map) param 2",
            "dev.baton.Message#<init>(String,byte[],String,String,Map) param 3",
            "dev.baton.Message#dedupKey() returns",
            "dev.baton.Message#dedupKey(String) param 0",
            "dev.baton.Message#equals(Object) param 0",
            "dev.baton.Message#key() returns",
            "dev.baton.Message#key(String) param 0",
            "dev.baton.OutboxMessage#<init>(long,String,String,String,Map,byte[],int) param 2",
            "dev.baton.OutboxMessage#<init>(long,String,String,String,Map,byte[],int) param 3",
            "dev.baton.OutboxMessage#dedupKey() returns",
            "dev.baton.OutboxMessage#key() returns",
            "dev.baton.Outcome#deadLetter(String) param 0",
            "dev.baton.Outcome#delay() returns",
            "dev.baton.Outcome#error() returns",
            "dev.baton.Outcome#retry(String) param 0",
            "dev.baton.Outcome#retryAfter(Duration,String) param 1",
            "dev.baton.Outcome#set(String,Object) param 1",
            "dev.baton.Outcome#target() returns",
            "dev.baton.Outcome#unknown(String) param 0",
            "dev.baton.QueueHealth#<init>(long,long,long,long,long,long,Duration) param 6",
            "dev.baton.QueueHealth#<init>(long,long,long,long,long,long,Duration,int,String) param 6",
            "dev.baton.QueueHealth#<init>(long,long,long,long,long,long,Duration,int,String) param 8",
            "dev.baton.QueueHealth#oldestEligibleAge() returns",
            "dev.baton.QueueHealth#sendDurabilityProblem() returns",
            "dev.baton.StateMachine#fromCode(Object) param 0",
            "dev.baton.Transition#set(String,Object) param 1",
            "dev.baton.TransitionResult$Conflict#<init>(Object,String) param 1",
            "dev.baton.TransitionResult$Conflict#constraint() returns",
            "dev.baton.UnknownRow#<init>(Object,int,String,Instant,boolean,Map) param 2",
            "dev.baton.UnknownRow#<init>(Object,int,String,Instant,boolean,Map) param 3",
            "dev.baton.UnknownRow#lastError() returns",
            "dev.baton.UnknownRow#reconcilableAt() returns",
            "dev.baton.UnknownRow#values() returns type argument",
            "dev.baton.UnknownSends#deadLetter(Object,String) param 1",
            "dev.baton.UnknownSends#principal() returns",
            "dev.baton.UnknownSends#resolve(Object,Outcome) param 1",
            "dev.baton.UnknownStateException#<init>(String,String,Object,Object,String) param 3",
            "dev.baton.UnknownStateException#rawValue() returns",
            "dev.baton.Worker$Reconciler#reconcile(Object) returns",
            "dev.baton.Worker$TypedReconciler#reconcile(Object) returns",
            "dev.baton.spi.BatchUpdate#execute(Connection,Object[]) param 1 component",
            "dev.baton.spi.BatchUpdate#execute(Connection,Object[]) returns type argument component",
            "dev.baton.spi.BatchUpdate#singleStatement(String,List,int) param 1 type argument",
            "dev.baton.spi.BatchUpdate$Execution#execute(Connection,Object[]) param 1 component",
            "dev.baton.spi.BatchUpdate$Execution#execute(Connection,Object[]) returns type argument component",
            "dev.baton.spi.Diagnostics#claimPlanProblem(Connection,BatchUpdateSpec,Object[]) param 2 component",
            "dev.baton.spi.ExclusiveLock#<init>(String,String) param 1",
            "dev.baton.spi.ExclusiveLock#releaseAfterEnd() returns",
            "dev.baton.spi.HostTransactions#current(DataSource) returns",
            "dev.baton.spi.Rows#bind(PreparedStatement,int,List) param 2 type argument",
            "dev.baton.spi.Rows#read(ResultSet,int) returns type argument component",
            "dev.baton.spi.SqlError#<init>(Kind,String) param 1",
            "dev.baton.spi.SqlError#<init>(Kind,String,String) param 1",
            "dev.baton.spi.SqlError#<init>(Kind,String,String) param 2",
            "dev.baton.spi.SqlError#column() returns",
            "dev.baton.spi.SqlError#constraint() returns",
            "dev.baton.spi.SqlFragment#binds() returns type argument",
            "dev.baton.spi.SqlFragment#resolve(List,Object[]) param 0 type argument",
            "dev.baton.spi.SqlFragment#resolve(List,Object[]) param 1 component",
            "dev.baton.spi.SqlFragment#resolve(List,Object[]) returns type argument",
            "dev.baton.spi.SqlVocabulary#clockMicros() returns",
            "dev.baton.spi.SqlVocabulary#exclusiveLock(long) returns",
            "dev.baton.spi.SqlVocabulary#exclusiveLock(long,String) returns",
            "dev.baton.spi.SqlVocabulary#exclusiveLockInCurrentSchema(long,String) returns",
            "dev.baton.spi.SqlVocabulary#utcDefaultFor(String,String) returns",
            "dev.baton.spi.SqlVocabulary#zoneSafeTimestampFix(String,String,String,boolean) returns");

    @Test
    void theExportedPackagesAreNullMarkedAndNoPublicTypeOptsOut() throws Exception {
        for (String pkg : List.of("dev.baton", "dev.baton.spi")) {
            Package p = Class.forName(pkg + ".package-info").getPackage();
            assertNotNull(p.getAnnotation(NullMarked.class), pkg + " is @NullMarked");
        }
        List<Class<?>> types = publicTypes();
        assertTrue(types.size() > 60, "public types found: " + types.size());
        for (Class<?> t : types) {
            assertFalse(t.isAnnotationPresent(NullUnmarked.class), t + " opts out of @NullMarked");
            String pkg = t.getPackageName();
            assertTrue(pkg.equals("dev.baton") || pkg.equals("dev.baton.spi"), t + " is in a null-marked package");
        }
    }

    @Test
    void exactlyTheListedPlacesAcceptOrReturnNull() throws Exception {
        TreeSet<String> found = new TreeSet<>();
        for (Class<?> t : publicTypes()) {
            List<Executable> members = new ArrayList<>(List.of(t.getDeclaredConstructors()));
            members.addAll(List.of(t.getDeclaredMethods()));
            for (Executable e : members) {
                if (!Modifier.isPublic(e.getModifiers()) && !(t.isInterface() && !Modifier.isPrivate(e.getModifiers()))
                        || e.isSynthetic()) {
                    continue;
                }
                String name = t.getName() + "#" + (e instanceof Method ? e.getName() : "<init>") + "("
                        + String.join(
                                ",",
                                Stream.of(e.getParameterTypes())
                                        .map(Class::getSimpleName)
                                        .toList()) + ")";
                AnnotatedType[] params = e.getAnnotatedParameterTypes();
                for (int i = 0; i < params.length; i++) {
                    collect(params[i], name + " param " + i, found);
                }
                if (e instanceof Method m) {
                    collect(m.getAnnotatedReturnType(), name + " returns", found);
                }
            }
        }
        assertEquals(new TreeSet<>(NULLABLE), found);
    }

    /** Records where {@code type} or a part of it (type argument, array component) is {@code @Nullable}. */
    private static void collect(AnnotatedType type, String where, TreeSet<String> found) {
        if (type.isAnnotationPresent(Nullable.class)) {
            found.add(where);
        }
        if (type instanceof AnnotatedParameterizedType p) {
            for (AnnotatedType arg : p.getAnnotatedActualTypeArguments()) {
                collect(arg, where + " type argument", found);
            }
        } else if (type instanceof AnnotatedArrayType a) {
            collect(a.getAnnotatedGenericComponentType(), where + " component", found);
        }
    }

    /** The public types (top-level and nested) of the API and SPI packages, from the compiled classes. */
    private static List<Class<?>> publicTypes() throws IOException, URISyntaxException, ClassNotFoundException {
        Path classes = Paths.get(ClaimQueue.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        List<Class<?>> out = new ArrayList<>();
        for (String dir : List.of("dev/baton", "dev/baton/spi")) {
            try (Stream<Path> files = Files.list(classes.resolve(dir))) {
                for (Path f : files.filter(p -> p.toString().endsWith(".class"))
                        .sorted()
                        .toList()) {
                    String name =
                            classes.relativize(f).toString().replace('/', '.').replaceAll("\\.class$", "");
                    if (name.endsWith("package-info")) {
                        continue;
                    }
                    Class<?> c = Class.forName(name, false, NullnessAnnotationsTest.class.getClassLoader());
                    if (isPublic(c)) {
                        out.add(c);
                    }
                }
            }
        }
        return out;
    }

    private static boolean isPublic(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getEnclosingClass()) {
            if (!Modifier.isPublic(k.getModifiers()) || k.isAnonymousClass() || k.isLocalClass()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Core's run-time dependencies are the JDK and slf4j-api: every other dependency of its POM is test-scoped,
     * optional or provided, and every other {@code requires} of its module is {@code static}.
     */
    @Test
    void atRunTimeCoreNeedsOnlyTheJdkAndSlf4j() throws IOException {
        String pom = Files.readString(Paths.get("pom.xml"), StandardCharsets.UTF_8);
        Matcher d = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL)
                .matcher(pom);
        List<String> runtime = new ArrayList<>();
        int dependencies = 0;
        while (d.find()) {
            dependencies++;
            String dep = d.group(1);
            boolean notAtRunTime = dep.contains("<scope>test</scope>")
                    || dep.contains("<scope>provided</scope>")
                    || dep.contains("<optional>true</optional>");
            if (!notAtRunTime) {
                runtime.add(dep.replaceAll(".*<artifactId>([^<]+)</artifactId>.*", "$1"));
            }
        }
        assertTrue(dependencies >= 3, "dependencies read from the POM: " + dependencies);
        assertEquals(List.of("slf4j-api"), runtime);
        assertTrue(pom.contains("<artifactId>jspecify</artifactId><optional>true</optional>"), "jspecify is optional");

        String module = Files.readString(Paths.get("src/main/java/module-info.java"), StandardCharsets.UTF_8);
        Matcher r = Pattern.compile("requires\\s+([\\w\\s.]+?);").matcher(module);
        List<String> required = new ArrayList<>();
        while (r.find()) {
            String clause = r.group(1).trim();
            if (!clause.startsWith("static ")) {
                required.add(clause.replace("transitive ", ""));
            }
        }
        assertEquals(List.of("java.sql", "org.slf4j"), required);
        assertTrue(module.contains("requires static transitive org.jspecify;"));
    }
}
