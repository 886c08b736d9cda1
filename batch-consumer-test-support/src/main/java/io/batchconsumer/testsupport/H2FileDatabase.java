package io.batchconsumer.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.test.context.ContextCustomizerFactories;

/**
 * Gives a Spring test's application context an H2 database of its own, in a file: sets
 * {@code spring.datasource.url} to {@code jdbc:h2:file:target/h2-databases/<TestClass>-<n>/db}
 * with {@code WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE} (written at once, closed by the context, not by
 * H2's shutdown hook). It replaces a {@code @TempDir} field and a {@code @DynamicPropertySource}
 * method per test class. Every test class gets a new database in a new directory, kept under
 * {@code target/} ({@code mvn clean} removes them).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ContextCustomizerFactories(H2FileDatabaseCustomizerFactory.class)
public @interface H2FileDatabase {

}
