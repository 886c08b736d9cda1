/**
 * Fixtures shared by the tests of every module: {@link io.batchconsumer.testsupport.FaultyDataSource},
 * {@link io.batchconsumer.testsupport.SharedPostgres}, {@link io.batchconsumer.testsupport.SharedMariaDb},
 * {@link io.batchconsumer.testsupport.SharedKafka}, and for Spring tests
 * {@link io.batchconsumer.testsupport.H2FileDatabase} and {@link io.batchconsumer.testsupport.SharedKafkaBroker}.
 */
package io.batchconsumer.testsupport;
