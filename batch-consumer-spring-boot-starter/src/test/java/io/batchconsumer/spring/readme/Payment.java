package io.batchconsumer.spring.readme;

record Payment(String id, String customer, long amountCents) {
}
