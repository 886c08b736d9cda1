package io.batchconsumer.spring.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Properties;

import com.zaxxer.hikari.HikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.config.BeanPostProcessor;

import io.batchconsumer.jdbc.SqliteConnections;
import io.batchconsumer.jdbc.SqliteSettings;

/**
 * Gives a HikariCP pool on a SQLite file ({@code spring.datasource.url=jdbc:sqlite:...}) the
 * connection properties that the JDBC transport needs ({@link SqliteSettings#connectionProperties()}:
 * WAL, {@code synchronous=NORMAL}, a busy timeout, immediate transactions) and a
 * {@code journal_size_limit} ({@link #JOURNAL_SIZE_LIMIT}) before the pool opens its first connection. What the application set itself wins: a key that is already among the pool's
 * data-source properties ({@code spring.datasource.hikari.data-source-properties.*}) or a parameter
 * of the URL is left alone; the transport then checks the result at start-up and refuses what does
 * not hold. The pool takes its connections from {@link SqliteConnections}, so that a transaction
 * whose {@code BEGIN} failed does not spoil the next one on its connection. The file's directory is created when it is missing (SQLite creates the file, not its
 * directory), so {@code jdbc:sqlite:./data/app.db} works on a first start.
 *
 * <p>Threading: stateless; called by the bean factory.
 */
final class SqliteDataSourceSettings implements BeanPostProcessor {

	private static final Logger logger = LoggerFactory.getLogger(SqliteDataSourceSettings.class);

	/**
	 * The size in bytes the {@code -wal} file is cut back to when SQLite writes it again from its
	 * start: one automatic checkpoint's worth (1,000 pages of 4 KiB). Without it the file keeps the
	 * largest size it reached, which a burst or a checkpoint that found a reader can make many times that.
	 */
	static final long JOURNAL_SIZE_LIMIT = 4L * 1024 * 1024;

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof HikariDataSource pool && isSqlite(pool.getJdbcUrl()) && !pool.isRunning()) {
			apply(pool);
			createDirectory(pool.getJdbcUrl());
		}
		return bean;
	}

	private static void apply(HikariDataSource pool) {
		String url = pool.getJdbcUrl();
		String parameters = url.contains("?") ? url.substring(url.indexOf('?') + 1).toLowerCase(Locale.ROOT) : "";
		Properties own = pool.getDataSourceProperties();
		Properties settings = SqliteSettings.connectionProperties();
		settings.setProperty("journal_size_limit", Long.toString(JOURNAL_SIZE_LIMIT));
		settings.forEach((key, value) -> {
			String name = key.toString();
			if (!own.containsKey(name) && !parameters.contains(name + "=")) {
				pool.addDataSourceProperty(name, value);
			}
		});
		if (pool.getDataSource() == null && pool.getDataSourceClassName() == null) {
			// Connections whose failed BEGIN does not leave them marked as in a transaction (the
			// application's transactions too, Spring's transaction manager among them).
			pool.setDataSource(new SqliteConnections(url, pool.getDataSourceProperties()));
		}
		logger.debug("SQLite connection properties of {}: {}", url, pool.getDataSourceProperties());
	}

	private static void createDirectory(String url) {
		String file = url.substring("jdbc:sqlite:".length());
		file = file.contains("?") ? file.substring(0, file.indexOf('?')) : file;
		file = file.startsWith("file:") ? file.substring("file:".length()) : file;
		if (file.isEmpty() || file.startsWith(":") || url.contains("mode=memory")) {
			return;
		}
		Path parent = Path.of(file).toAbsolutePath().normalize().getParent();
		if (parent != null && !Files.isDirectory(parent)) {
			try {
				Files.createDirectories(parent);
				logger.info("Created the directory {} of the SQLite database {}", parent, url);
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Cannot create the directory " + parent + " of the SQLite database "
						+ url + ": " + ex.getMessage(), ex);
			}
		}
	}

	private static boolean isSqlite(String url) {
		return url != null && url.regionMatches(true, 0, "jdbc:sqlite:", 0, 12);
	}

}
